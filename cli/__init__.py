"""The `schemac` command line (click + rich); see schemac.cli.main for commands and exit codes."""
