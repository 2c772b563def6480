"""Metaschema validation (`check`), with offline `$ref`s into the official metaschemas (`refs`).
"""
