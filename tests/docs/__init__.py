"""Documentation that runs: the README's pre-commit snippet end to end."""
