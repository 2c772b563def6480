"""The `schemac` command line: check, config, discovery, output formats, wrappers."""
