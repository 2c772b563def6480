"""The Lark writer (schemac.emit): object keys and key orders, merges, pruning, arrays, depth, export."""
