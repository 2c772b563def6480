"""Harnesses shared by the tests and the benchmarks (not installed; imported from the checkout).

The tests get it on sys.path from pyproject.toml's pytest `pythonpath = ["."]`; the benchmarks
run as `python3 -m benchmarks.X` from the repository root, which puts the checkout there too.
Nothing here imports from tests/.
"""
