"""Reference resolution: referenced files read offline (`files`), every `$ref` rewritten to
`#/$defs/<name>` (`bundle`), cycles that never consume input refused (`cycles`).
"""
