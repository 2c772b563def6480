"""Opt-in exact upgrade of draft-04/06/07/2019-09 schemas to 2020-12: the entry point
(`translate`), the old drafts' keyword tables (`keywords`) and the one-pass walk (`walk`).
"""
