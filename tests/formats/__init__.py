"""`format`: enforced formats, their complements, OpenAPI number formats."""
