"""Patterns: the ECMA-262 translation, assertions and look-arounds, lexer limits, string lexemes."""
