"""Exact numbers and their spellings: schema literals as exact values (`exact`), number
languages between bounds (`bounds`), step constraints (`residue`), automata (`dfa`) and their regexes
(`regex`). Shared by lowering, emit and the final validator's format checks.
"""
