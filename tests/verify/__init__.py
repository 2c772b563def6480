"""`schemac verify`: the verifier, the primitive catalogue, liveness."""
