"""Front end: schema text (JSON, or YAML held to JSON's strictness: `yaml_load`) to one resolved
2020-12 bundle (load, dialect, upgrade, metaschema, client options, resolve, formats), with every
position mapped back into the user's file (`origins`, `locate`). Nothing here knows about grammars.
"""
