"""Schemas written in YAML (optional: `pip install schemac[yaml]`), held to JSON's strictness.

PyYAML's loaders let a repeated key silently win, which would make a schema mean different things
to different tools; this loader rejects it like the JSON loader does (with the key's pointer). Timestamps stay strings (a
JSON Schema has no dates), and the position of every node is kept so diagnostics can point into
the file.
"""
from __future__ import annotations

from typing import Any

from schemac.diagnostics import CompileError, Diagnostic, Severity
from schemac.schema import child_pointer


def available() -> bool:
    """Whether PyYAML is installed (checked without importing it)."""
    from importlib.util import find_spec

    return find_spec("yaml") is not None


def _error(code: str, message: str, mark: Any) -> CompileError:
    line = mark.line + 1 if mark is not None else None
    col = mark.column + 1 if mark is not None else None
    where = f" (line {line}, column {col})" if line is not None else ""
    return CompileError(Diagnostic(Severity.ERROR, code, "", message + where, None, line, col))


def _loader_class() -> type:
    import yaml

    class StrictLoader(yaml.SafeLoader):
        """SafeLoader that keeps timestamps as strings (a JSON Schema has no dates)."""

    StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", StrictLoader.construct_yaml_str)
    return StrictLoader


def _positions(root: Any) -> dict[str, tuple[int, int]]:
    """pointer → 1-based (line, column) of each node (a member's key, like schemac.front.locate).

    Walks the composed node tree (where the pointers are known) and rejects a repeated key here,
    before PyYAML's constructor would let the last one win.
    """
    import yaml

    out: dict[str, tuple[int, int]] = {"": (root.start_mark.line + 1, root.start_mark.column + 1)}
    stack: list[tuple[Any, str]] = [(root, "")]
    seen: set[int] = set()
    while stack:
        node, pointer = stack.pop()
        if id(node) in seen:  # aliases share nodes; a cycle must not loop forever
            continue
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: set[tuple[str, str]] = set()
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                child = child_pointer(pointer, key_node.value)
                if (key_node.tag, key_node.value) in keys:
                    mark = key_node.start_mark
                    raise CompileError(Diagnostic(
                        Severity.ERROR, "duplicate-key", child, f"duplicate object key {key_node.value!r}",
                        "keep one of the entries: YAML tools disagree on which one wins", mark.line + 1, mark.column + 1,
                    ))
                keys.add((key_node.tag, key_node.value))
                out.setdefault(child, (key_node.start_mark.line + 1, key_node.start_mark.column + 1))
                stack.append((value_node, child))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                child = child_pointer(pointer, i)
                out.setdefault(child, (item.start_mark.line + 1, item.start_mark.column + 1))
                stack.append((item, child))
    return out


def load_yaml(text: str) -> tuple[Any, dict[str, tuple[int, int]]]:
    """The document's value and node positions; CompileError (invalid-yaml, duplicate-key) otherwise."""
    import yaml

    loader = _loader_class()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise _error("invalid-yaml", "the YAML document is empty", None)
        positions = _positions(node)
        value = loader.construct_document(node)
    except yaml.MarkedYAMLError as exc:
        raise _error("invalid-yaml", f"{exc.problem or exc}", exc.problem_mark) from exc
    except yaml.YAMLError as exc:
        raise _error("invalid-yaml", str(exc), None) from exc
    except RecursionError as exc:
        raise _error("too-large", "YAML nesting is too deep to parse", None) from exc
    finally:
        loader.dispose()
    return value, positions
