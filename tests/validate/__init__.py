"""Final validation: FinalValidator, parse_answer, `Artifact.validate` and `schemac validate`."""
