"""Which dialect a schema speaks: the 2020-12 gate (`gate`), `$schema` URIs (`uri`), custom
vocabularies (`vocabulary`) and the draft-07 `dependencies` compatibility rule (`compat`).
"""
