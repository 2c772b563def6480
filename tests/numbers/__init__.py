"""Numbers: exact lexemes, counted bounds, multipleOf automata, listed numbers and the Lark number rules."""
