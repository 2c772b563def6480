"""schemac.front.locate: JSON Pointer → line/column in the schema's text."""
from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from schemac.front.locate import Locator


def test_members_are_located_at_their_key_and_elements_at_their_value() -> None:
    text = '{\n  "type": "object",\n  "properties": {\n    "a": {"enum": [1, {"b": 2}]}\n  }\n}'
    loc = Locator.from_json_text(text)
    assert loc.position("") == (1, 1)
    assert loc.position("/type") == (2, 3)
    assert loc.position("/properties/a") == (4, 5)
    assert loc.position("/properties/a/enum/0") == (4, 20)
    assert loc.position("/properties/a/enum/1/b") == (4, 24)


def test_escaped_keys_and_pointer_escapes() -> None:
    text = '{"a/b": 1, "c~d": 2, "\\u00e9\\"\\n": 3, "": {"x": [true]}}'
    loc = Locator.from_json_text(text)
    assert loc.position("/a~1b") == (1, 2)
    assert loc.position("/c~0d") == (1, 12)
    assert loc.position('/é"\n') == (1, 22)
    assert loc.position("//x/0") == (1, 50)


def test_columns_count_code_points_and_lines_follow_newlines() -> None:
    loc = Locator.from_json_text('{"ü€": "😀😀",\n"k": null}')
    assert loc.position("/k") == (2, 1)
    assert Locator.from_json_text('{"😀": 1, "b": 2}').position("/b") == (1, 10)


def test_missing_pointer_falls_back_to_the_nearest_ancestor() -> None:
    loc = Locator.from_json_text('{"properties": {"a": {}}}')
    assert loc.position("/properties/a/allOf/0/not") == loc.position("/properties/a")
    assert loc.position("/nothing") == (1, 1)


def test_deep_nesting_is_scanned_without_recursion() -> None:
    depth = 50_000
    text = '{"a": ' * depth + "1" + "}" * depth
    loc = Locator.from_json_text(text)
    assert loc.position("/a" * depth) == (1, 6 * depth - 4)


def test_invalid_text_keeps_what_was_found_before_the_error() -> None:
    loc = Locator.from_json_text('{"a": 1, "b": [1, 2,, "c": 3}')
    assert loc.position("/b/1") == (1, 19)
    assert "/c" not in loc.positions


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(_json, st.sampled_from([None, 2]), st.booleans())
def test_every_value_is_found_where_json_dumps_put_it(value: object, indent: int | None, ascii_only: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    loc = Locator.from_json_text(text)
    lines = text.split("\n")
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        pointer, node = stack.pop()
        line, col = loc.positions[pointer]
        rest = lines[line - 1][col - 1:]
        if pointer and isinstance(parent_of(value, pointer), dict):
            key = unescape(pointer.rsplit("/", 1)[1])
            assert json.loads(rest[: len(json.dumps(key, ensure_ascii=ascii_only))]) == key
        else:
            first_line = json.dumps(node, indent=indent, ensure_ascii=ascii_only).split("\n")[0]
            assert rest.startswith(first_line)
        if isinstance(node, dict):
            stack.extend((pointer + "/" + k.replace("~", "~0").replace("/", "~1"), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((f"{pointer}/{i}", v) for i, v in enumerate(node))


def unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def parent_of(root: object, pointer: str) -> object:
    node = root
    for token in pointer.split("/")[1:-1]:
        node = node[int(token)] if isinstance(node, list) else node[unescape(token)]  # type: ignore[index]
    return node


def test_upgraded_schemas_are_located_in_the_users_file(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`definitions` far down a draft-07 file: the diagnostic lands on its line, in JSON and YAML,
    and in SARIF and GitHub annotations alike (they all read the same located records)."""
    from testkit.cli_support import report, write

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))
    padding = {f"p{i}": {"type": "string"} for i in range(40)}
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "properties": padding,
              "definitions": {"x": {"oneOf": [{"items": [{"type": "integer"}], "additionalItems": {"type": "string"}}, {"minItems": 1}]}},
              "items": [{"$ref": "#/definitions/x"}]}
    text = json.dumps(schema, indent=2)
    write(tmp_path / "s.json", text)
    lines = text.splitlines()
    want = next(i for i, line in enumerate(lines, 1) if line.strip().startswith('"oneOf"'))
    code, data = report("check", "--upgrade-drafts", "s.json")
    (d,) = data["schemas"][0]["diagnostics"]
    assert code == 1 and (d["code"], d["pointer"]) == ("one-of-not-exact", "/definitions/x/oneOf")
    assert (d["line"], d["column"]) == (want, lines[want - 1].index('"oneOf"') + 1)
    import yaml

    write(tmp_path / "s.yaml", yaml.safe_dump(schema, sort_keys=False))
    ylines = (tmp_path / "s.yaml").read_text().splitlines()
    (y,) = report("check", "--upgrade-drafts", "s.yaml")[1]["schemas"][0]["diagnostics"]
    assert y["pointer"] == "/definitions/x/oneOf" and ylines[y["line"] - 1].strip().startswith("oneOf:")
