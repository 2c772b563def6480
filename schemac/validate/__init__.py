"""Final validation, the one definition of a valid answer: the validator (`final`), strict JSON
answers with exact numbers (`answer`), format assertions (`formats`), one validator per artifact key
(`cache`), and the client-side entry point (`client`). It keeps its own arithmetic on purpose: it is the oracle the grammar is checked
against, so it shares no number code with the grammar writers.
"""
