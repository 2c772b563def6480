"""Serving-engine integrations that need the engine's own classes (imported only on use).

`schemac.integrations.sglang`: a native SGLang grammar backend named "schemac" (its grammar
objects in `schemac.integrations.sglang_grammar`). vLLM needs no
module: an unmodified server enforces `Artifact.lark` through `structured_outputs={"grammar": ...}`.
"""
