"""SGLang integration: a grammar backend named `schemac` (`backend`, registered by the
`sglang.srt.plugins` entry point) and its per-request grammar objects (`grammar`). Imports SGLang
only when used.
"""
