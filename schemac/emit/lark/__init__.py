"""The Lark backend: nodes llguidance's JSON compiler cannot enforce exactly, written as Lark rules
and terminals. `writer` is the entry; the other modules each write one kind of node.
"""
