"""Serving-engine integrations that need the engine's own classes (imported only on use).

`schemac.integrations.sglang`: a native SGLang grammar backend named "schemac". vLLM needs no
module: an unmodified server enforces `Artifact.lark` through `structured_outputs={"grammar": ...}`.
"""
