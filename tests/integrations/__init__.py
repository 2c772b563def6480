"""Engines: SGLang, llguidance (supported range, entry points, pinned deviations), xgrammar."""
