"""Helpers the lowering passes share; none of these is a pass. Pass modules sit one level up,
listed in `schemac.lower.PASSES`.
"""
