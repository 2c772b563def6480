"""A real vLLM server in the loop: `python3 -m benchmarks.vllm_server` (see __main__.py)."""
