"""Benchmark scripts; each prints figures (speed goals are checked here, never by timed tests)."""
