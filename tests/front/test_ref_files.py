"""References to other documents: local files inside the root, mapped copies of remote ones,
and the refusals (outside the root, symbolic links leaving it, absolute paths, network schemes).

Verdicts are checked on the compiled grammar itself (byte tokenizer) and on the final validator,
against the Test Suite's labels."""
from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest

import schemac
from schemac.diagnostics import CompileError
from schemac.validate.final import FinalValidator
from testkit.grammar_harness import accepts

SUITE = Path(__file__).resolve().parents[2] / "testdata" / "suite"
#: the Test Suite's `http://localhost:1234/` documents its tests need (copied from its remotes/)
REMOTES = {"http://localhost:1234/": str(SUITE / "remotes")}


def _codes(schema: Any, **kw: Any) -> list[str]:
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False, **kw)
    return info.value.codes


def _message(schema: Any, **kw: Any) -> str:
    with pytest.raises(CompileError) as info:
        schemac.compile(schema, use_cache=False, **kw)
    return info.value.diagnostics[0].message


def _right_verdicts(artifact: schemac.Artifact, tests: list[dict[str, Any]], where: str) -> None:
    validator = FinalValidator(artifact.schema)
    for test in tests:
        text = json.dumps(test["data"])
        assert accepts(artifact.grammar, text) is test["valid"], (where, test["description"])
        assert validator.is_valid(test["data"]) is test["valid"], (where, test["description"])


def test_suite_remote_groups_through_the_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every group of refRemote.json, and the dynamicRef.json groups that name a remote document,
    compile through the mapping, and every instance gets its label, with no socket opened."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a socket was opened")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    compiled = 0
    for name in ("refRemote.json", "dynamicRef.json"):
        for group in json.loads((SUITE / name).read_text()):
            text = json.dumps(group["schema"])
            names_remote = any(f'"{k}": "{u}' in text for k in ("$ref", "$dynamicRef") for u in ("http://localhost:1234/", "tree.json", "extendible"))
            if name == "dynamicRef.json" and not names_remote:
                continue
            artifact = schemac.compile(group["schema"], use_cache=False, ref_map=REMOTES)
            assert "localhost" not in json.dumps(artifact.schema), "the artifact must be self-contained"
            _right_verdicts(artifact, group["tests"], f"{name}: {group['description']}")
            compiled += 1
    assert compiled == 15 + 5


def _tree(root: Path, files: dict[str, Any]) -> None:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value if isinstance(value, str) else json.dumps(value))


def _compile_file(path: Path, **kw: Any) -> schemac.Artifact:
    return schemac.compile(path.read_text(), path=path, use_cache=False, **kw)


def test_relative_files_resolve_against_their_own_folder(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "common.json": {"$defs": {"id": {"type": "integer", "minimum": 1}}},
        "defs/a.json": {"x": {"type": "string", "maxLength": 2, "not": {"$ref": "../common.json#/$defs/id"}},
                        "y": {"$ref": "sub/b.json"}},
        "defs/sub/b.json": {"enum": [1, 2]},
        "main.json": {"type": "object", "required": ["id"], "additionalProperties": False,
                      "properties": {"id": {"$ref": "common.json#/$defs/id"}, "x": {"$ref": "./defs/a.json#/x"},
                                     "y": {"$ref": "defs/a.json#/y"}}},
    })
    artifact = _compile_file(tmp_path / "main.json", ref_root=tmp_path)
    tests = [({"id": 1}, True), ({"id": 0}, False), ({"id": 1, "x": "ab"}, True), ({"id": 1, "x": "abc"}, False),
             ({"id": 1, "y": 2}, True), ({"id": 1, "y": 3}, False), ({"x": "a"}, False)]
    _right_verdicts(artifact, [{"data": d, "valid": v, "description": str(d)} for d, v in tests], "files")
    assert "file:" not in json.dumps(artifact.schema)


def test_cycles_across_files(tmp_path: Path) -> None:
    """Recursion through two files compiles (each document is read once); a cycle that never
    moves to a child instance is refused like one inside a document."""
    _tree(tmp_path, {
        "a.json": {"type": "object", "properties": {"next": {"$ref": "b.json"}, "v": {"type": "integer"}}},
        "b.json": {"anyOf": [{"type": "null"}, {"$ref": "a.json"}]},
        "loop.json": {"allOf": [{"$ref": "loop2.json"}]},
        "loop2.json": {"not": {"$ref": "loop.json"}},
    })
    artifact = _compile_file(tmp_path / "a.json", ref_root=tmp_path)
    tests = [({"next": {"next": None, "v": 1}}, True), ({"next": {"next": {"v": "x"}}}, False), ({"next": 1}, False)]
    _right_verdicts(artifact, [{"data": d, "valid": v, "description": str(d)} for d, v in tests], "cycle")
    assert not any("a.json" in name for name in artifact.schema["$defs"])  # a.json is the document itself, read once
    with pytest.raises(CompileError) as info:
        _compile_file(tmp_path / "loop.json", ref_root=tmp_path)
    assert info.value.codes == ["unresolvable-ref"] and "without progress" in str(info.value)


@pytest.mark.parametrize("ref, why", [
    ("../outside.json", "outside the reference root"),
    ("../../etc/passwd", "outside the reference root"),
    ("/etc/hostname", "outside the reference root"),
    ("file:///etc/hostname", "outside the reference root"),
    ("link.json", "through a symbolic link"),
    ("linkdir/x.json", "through a symbolic link"),
    ("https://example.com/s.json", "network reference (https)"),
    ("ftp://example.com/s.json", "network reference (ftp)"),
    ("file://example.com/s.json", "network reference (file)"),
])
def test_refused_outside_the_root_and_on_the_network(tmp_path: Path, ref: str, why: str) -> None:
    root = tmp_path / "root"
    _tree(tmp_path, {"outside.json": {"type": "string"}, "outdir/x.json": {"type": "string"},
                     "root/main.json": {"$ref": ref}})
    os.symlink(tmp_path / "outside.json", root / "link.json")
    os.symlink(tmp_path / "outdir", root / "linkdir")
    with pytest.raises(CompileError) as info:
        _compile_file(root / "main.json", ref_root=root)
    assert info.value.codes == ["remote-ref"], str(info.value)
    assert why in info.value.diagnostics[0].message and info.value.diagnostics[0].pointer == "/$ref"


def test_files_need_a_location_and_a_root() -> None:
    assert "no file location" in _message({"$ref": "common.json"}, ref_map=REMOTES)
    assert _codes({"$ref": "common.json"}) == ["remote-ref"]  # no path: nothing is read


def test_failures_point_at_the_referring_ref(tmp_path: Path) -> None:
    """A referenced file that cannot be read or used is reported at the `$ref` that names it,
    with the file (and the line where the parser gave one) in the message."""
    _tree(tmp_path, {"bad.json": '{"type": "string",\n }',
                     "old.json": {"$schema": "http://json-schema.org/draft-07/schema#"}})
    for target, code, text in (("missing.json", "unresolvable-ref", "cannot read it"),
                               ("bad.json", "invalid-json", "(line 2, column 2)"),
                               ("old.json", "unsupported-dialect", "2020-12 only")):
        _tree(tmp_path, {"main.json": {"properties": {"p": {"$ref": target}}}})
        with pytest.raises(CompileError) as info:
            _compile_file(tmp_path / "main.json", ref_root=tmp_path)
        found = info.value.diagnostics[0]
        assert (found.code, found.pointer) == (code, "/properties/p/$ref"), found
        assert text in found.message and target in found.message, found


def test_unreached_failures_are_not_reported(tmp_path: Path) -> None:
    """Like every unresolvable reference, a missing file counts only where a reference reaches it."""
    _tree(tmp_path, {"main.json": {"$defs": {"unused": {"$ref": "missing.json"}}, "type": "integer"}})
    assert _compile_file(tmp_path / "main.json", ref_root=tmp_path).schema == {"type": "integer"}


def test_user_pointers_never_reach_into_a_read_document(tmp_path: Path) -> None:
    _tree(tmp_path, {"a.json": {"type": "string"},
                     "main.json": {"properties": {"a": {"$ref": "a.json"}, "b": {"$ref": "#/$defs/schemac:ref:a.json"}}}})
    with pytest.raises(CompileError) as info:
        _compile_file(tmp_path / "main.json", ref_root=tmp_path)
    assert info.value.codes == ["unresolvable-ref"]


def test_the_key_covers_the_referenced_content(tmp_path: Path) -> None:
    _tree(tmp_path, {"a.json": {"type": "string"}, "main.json": {"$ref": "a.json"}})
    main = tmp_path / "main.json"
    first = schemac.compile(main.read_text(), path=main, ref_root=tmp_path)
    assert schemac.compile(main.read_text(), path=main, ref_root=tmp_path).key == first.key
    (tmp_path / "a.json").write_text(json.dumps({"type": "integer"}))
    second = schemac.compile(main.read_text(), path=main, ref_root=tmp_path)
    assert second.key != first.key
    assert list(second.schema["$defs"].values()) == [{"type": "integer"}] and "file:" not in json.dumps(second.schema)
    plain = schemac.compile({"type": "integer"})
    assert plain.key == schemac.compile({"type": "integer"}, path=main, ref_root=tmp_path).key


def test_yaml_documents(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    _tree(tmp_path, {"defs/a.yaml": "x:\n  type: integer\n  maximum: 3\n", "main.json": {"$ref": "./defs/a.yaml#/x"}})
    artifact = _compile_file(tmp_path / "main.json", ref_root=tmp_path)
    assert list(artifact.schema["$defs"].values()) == [{"type": "integer", "maximum": 3}]


def test_the_document_count_is_bounded(tmp_path: Path) -> None:
    from schemac.front.resolve.files import MAX_DOCUMENTS

    chain = {f"d{i}.json": {"items": {"$ref": f"d{i + 1}.json"}} for i in range(MAX_DOCUMENTS + 1)}
    _tree(tmp_path, {**chain, f"d{MAX_DOCUMENTS + 1}.json": {"type": "integer"}})
    with pytest.raises(CompileError) as info:
        _compile_file(tmp_path / "d0.json", ref_root=tmp_path)
    assert info.value.codes == ["too-large"] and f"more than {MAX_DOCUMENTS}" in str(info.value)


def test_a_read_document_passes_the_same_front_stages(tmp_path: Path) -> None:
    """What the referring document is held to before resolution holds for what it reads: the
    metaschema, no `x-guidance`, no other dialect, `dependencies` kept as a constraint; a FIFO
    or a folder is never opened as a document."""
    os.mkfifo(tmp_path / "fifo.json")
    _tree(tmp_path, {"kw.json": {"minimum": "x"}, "xg.json": {"x-guidance": {"lenient": True}},
                     "nested.json": {"$defs": {"a": {"$id": "x", "$schema": "http://json-schema.org/draft-07/schema#"}}},
                     "folder/a.json": {}, "dep.json": {"dependencies": {"a": ["b"]}}})
    for target, code in (("kw.json", "invalid-schema"), ("xg.json", "client-options"), ("fifo.json", "unresolvable-ref"),
                         ("nested.json", "unsupported-dialect"), ("folder", "unresolvable-ref")):
        _tree(tmp_path, {"main.json": {"items": {"$ref": target}}})
        with pytest.raises(CompileError) as info:
            _compile_file(tmp_path / "main.json", ref_root=tmp_path)
        assert (info.value.codes, info.value.diagnostics[0].pointer) == ([code], "/items/$ref"), target
    _tree(tmp_path, {"main.json": {"$ref": "dep.json"}})
    validator = FinalValidator(_compile_file(tmp_path / "main.json", ref_root=tmp_path).schema)
    assert validator.is_valid({"a": 1, "b": 2}) and not validator.is_valid({"a": 1})


def test_later_diagnostics_name_the_read_file(tmp_path: Path) -> None:
    _tree(tmp_path, {"fmt.json": '{"type": "string",\n  "format": "color"}', "main.json": {"items": {"$ref": "fmt.json"}}})
    found = _compile_file(tmp_path / "main.json", ref_root=tmp_path).diagnostics
    assert [(d.code, d.pointer) for d in found] == [("unknown-format", "")]
    assert found[0].message.startswith(f"in {tmp_path / 'fmt.json'}:2:3 at /format: "), found


def test_mapped_prefixes_match_whole_path_segments(tmp_path: Path) -> None:
    _tree(tmp_path, {"vendor/a.json": {"type": "integer"}, "vendor-other/a.json": {"type": "string"}})
    ref_map = {"https://example.com/s": str(tmp_path / "vendor")}
    artifact = schemac.compile({"$ref": "https://example.com/s/a.json"}, use_cache=False, ref_map=ref_map)
    assert accepts(artifact.grammar, "1") and not accepts(artifact.grammar, '"a"')
    assert "network reference" in _message({"$ref": "https://example.com/s-other/a.json"}, ref_map=ref_map)
    assert "with a query" in _message({"$ref": "https://example.com/s/a.json?v=2"}, ref_map=ref_map)


def test_stages_the_census_skips_still_see_read_documents(tmp_path: Path) -> None:
    """The loader's key census describes the referring document only: a `format` or `pattern`
    that only a read document (or a bundled metaschema) holds still goes through its stage, also
    after the draft upgrade rebuilt the census."""
    _tree(tmp_path, {"fmt.json": {"type": "string", "format": "color"},
                     "main.json": {"$schema": "http://json-schema.org/draft-07/schema#", "items": {"$ref": "fmt.json"}}})
    with pytest.raises(CompileError) as info:
        _compile_file(tmp_path / "main.json", ref_root=tmp_path, upgrade_drafts=True, strict_formats=True)
    assert info.value.codes == ["unknown-format"] and "fmt.json:1:" in info.value.diagnostics[0].message
    meta = schemac.compile({"items": {"$ref": "https://json-schema.org/draft/2020-12/meta/core#/$defs/uriReferenceString"}},
                           use_cache=False)
    assert "format:uri-reference:string" in json.dumps(meta.lowered)  # schemac's exact form, not llguidance's
