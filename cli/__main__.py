"""`python -m schemac.cli`: the same command line as the `schemac` console script."""
from schemac.cli.main import main

main()
