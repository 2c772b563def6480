"""The conformance benchmark (benchmarks/conformance) on small curated files."""
