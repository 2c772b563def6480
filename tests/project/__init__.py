"""The project set-up: declared dependencies, the CI test command."""
