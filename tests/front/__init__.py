"""Front end: loading, dialects and vocabularies, metaschema validation and refs, reference resolution, draft upgrade."""
