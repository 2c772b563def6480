"""One regex semantics: only `schemac.regex` runs schema patterns, and only it imports RE2.

Scans every module of schemac/, runtime/ and cli/ (imports inside functions too). Python `re` is
allowed on text that is never a schema pattern, in the modules listed below with the reason; a
listed module that no longer imports `re` fails too, so the list stays tight. jsonschema is
imported only where the final validator is built, with the ECMA pattern keywords in place.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("schemac", "runtime", "cli")
REGEX_PACKAGE = "schemac/regex/"

#: modules that may import Python `re`, and why none of their regexes is a schema pattern
RE_ALLOWED: dict[str, str] = {
    "schemac/config.py": "config-file globs (file selection), never schema text",
    "cli/gitignore.py": ".gitignore globs for the folder walk",
    "cli/discover.py": "the pre-commit hook's fixed file-name pattern and `$schema` sniffs (file selection)",
    "schemac/front/load.py": "fixed JSON token and surrogate scanners over the schema document's text",
    "schemac/front/locate.py": "fixed JSON scanners mapping pointers to line:col",
    "schemac/front/resolve/bundle.py": "a fixed character class for generated definition names",
    "schemac/api.py": "a fixed tool- and format-name syntax",
    "schemac/tools/dsml.py": "a fixed tool-name syntax",
    "schemac/validate/answer.py": "fixed number-literal and surrogate scanners over answer text",
    "schemac/validate/formats.py": "the fixed ASCII ABNF of the asserted formats (RFC 3339/3986/...)",
    "schemac/front/metaschema/check.py": "the metaschemas' own fixed patterns (anchor names, `$id`), never a schema's",
    "cli/text.py": "a fixed quoted-string scanner for terminal output",
    "schemac/validate/client.py": "fixed JSON number-literal scanners over answer tokens",
    "schemac/llguidance_range.py": "a fixed version-number syntax",
    "schemac/emit/lark/depth.py": "a fixed identifier scanner over the Lark text schemac wrote (rule references)",
    "schemac/verify/alphabet.py": "a fixed scanner lifting literal words out of pattern text into the walk's alphabet; never decides a match",
}
#: modules that may import Python `re` with a pattern built at run time (globs), not a constant
RE_DYNAMIC: dict[str, str] = {
    "schemac/config.py": "translates config globs to regexes",
    "cli/gitignore.py": "translates .gitignore globs to regexes",
    "schemac/front/metaschema/check.py": "looks up the ECMA translation of a metaschema pattern (a fixed table)",
}
#: modules that may import jsonschema, and why no schema pattern reaches its default keywords
JSONSCHEMA_ALLOWED: dict[str, str] = {
    "schemac/validate/final.py": "builds the final validator; pattern keywords replaced by schemac.regex",
    "schemac/validate/formats.py": "a FormatChecker holding only schemac's own format checks",
    "schemac/front/metaschema/check.py": "validates schemas against the metaschema: no format checker, its `pattern` "
                             "keyword replaced (fixed metaschema patterns only)",
    "schemac/verify/oracle.py": "the verifier's second-opinion validator: pattern keywords replaced by "
                                "schemac.regex.ecma_search, evaluated-keys forms it cannot judge refused",
}
_RE_FUNCTIONS = {"compile", "match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer"}


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            out.append((rel, ast.parse(path.read_text(encoding="utf-8"), rel)))
    return out


MODULES = _modules()


def _imports(tree: ast.Module) -> set[str]:
    """Top-level names of every module imported anywhere in `tree`."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _static(node: ast.expr, constants: set[str]) -> bool:
    """Whether `node` is built from literals and module constants only (no run-time text)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, ast.JoinedStr):
        return all(_static(v, constants) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _static(node.value, constants)
    if isinstance(node, ast.BinOp):
        return _static(node.left, constants) and _static(node.right, constants)
    return False


def _module_constants(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id.lstrip("_").isupper())
    return names


def test_the_scan_sees_the_tree() -> None:
    names = {rel for rel, _ in MODULES}
    assert "schemac/validate/final.py" in names and "schemac/regex/engine.py" in names and len(names) > 40


def test_only_the_regex_package_imports_re2() -> None:
    bad = [rel for rel, tree in MODULES if "re2" in _imports(tree) and not rel.startswith(REGEX_PACKAGE)]
    assert bad == []
    assert any("re2" in _imports(tree) for rel, tree in MODULES if rel.startswith(REGEX_PACKAGE))


def test_python_re_only_where_listed() -> None:
    importing = {rel for rel, tree in MODULES if _imports(tree) & {"re", "regex"}}
    new = importing - set(RE_ALLOWED)
    assert new == set(), "a module uses Python `re`: list it here with the reason, or use schemac.regex"
    assert set(RE_ALLOWED) - importing == set(), "a listed module no longer uses `re`: drop it from the list"


def test_python_re_runs_constant_patterns() -> None:
    """Outside the glob translators, every `re.<function>(pattern, ...)` has a literal pattern."""
    dynamic = []
    for rel, tree in MODULES:
        if rel not in RE_ALLOWED or rel in RE_DYNAMIC:
            continue
        constants = _module_constants(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
                    and node.func.attr in _RE_FUNCTIONS and node.args and not _static(node.args[0], constants)):
                dynamic.append(f"{rel}:{node.lineno}")
    assert dynamic == []


def test_jsonschema_only_where_listed() -> None:
    importing = {rel for rel, tree in MODULES if "jsonschema" in _imports(tree)}
    new = importing - set(JSONSCHEMA_ALLOWED)
    assert new == set(), "jsonschema's default keywords run Python `re` on schema patterns"
    assert set(JSONSCHEMA_ALLOWED) - importing == set()


def test_final_validator_keywords_are_schemacs() -> None:
    """Every keyword that matches a schema pattern is replaced in the final validator."""
    import schemac.validate.final as v

    keywords = v._validator_class().VALIDATORS
    for name in ("pattern", "patternProperties", "additionalProperties", "unevaluatedProperties"):
        assert keywords[name].__module__ == "schemac.validate.final", name


@pytest.mark.parametrize("schema, instance, valid", [
    ({"pattern": "^.$"}, "\r", False),  # Python `re`: "." takes \r
    ({"pattern": "^\\S$"}, "\u00a0", False),
    ({"pattern": "^\\d$"}, "\u0663", False),  # Python `re`: Unicode digits
    ({"pattern": "^a$"}, "a\n", False),  # Python `re`: `$` before a final newline
    ({"pattern": "[^]"}, "\n", True),  # Python `re`: re.error
    ({"pattern": "^\\u{1F600}$"}, "\U0001f600", True),  # Python `re`: bad escape
    ({"propertyNames": {"pattern": "^.$"}}, {"\r": 1}, False),
    ({"patternProperties": {"^\\s$": False}}, {"\ufeff": 1}, False),
    ({"additionalProperties": False, "patternProperties": {"^\\w$": True}}, {"\u00e9": 1}, False),
    ({"unevaluatedProperties": False, "patternProperties": {"^.$": True}}, {"\u2028": 1}, False),
])
def test_final_validator_has_ecma_meaning(schema: dict, instance: object, valid: bool) -> None:
    from schemac.validate.final import FinalValidator

    assert FinalValidator(schema).is_valid(instance) is valid
