"""The decoding runtime: engine, requests, boundary, reasoning gate, tokenizers, kernels."""
