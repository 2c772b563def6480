"""schemac.config: discovery, validation, globs, and how the CLI applies them."""
from __future__ import annotations

from pathlib import Path

import pytest
from testkit.cli_support import COLOR, DRAFT7, OK, REMOTE, report, run, write

from schemac.config import ConfigError, Glob, find_config, load_config


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    "pattern, path, hit",
    [
        ("schemas/legacy/*.json", "schemas/legacy/a.json", True),
        ("schemas/legacy/*.json", "schemas/legacy/old/a.json", False),
        ("schemas/**/*.json", "schemas/a.json", True),
        ("schemas/**/*.json", "schemas/x/y/a.json", True),
        ("**/fixtures/**", "fixtures/a.json", True),
        ("*.yaml", "deep/in/side.yaml", True),
        ("./top/?.json", "top/a.json", True),
        ("[!a]*.json", "a.json", False),
        ("[!a]*.json", "b.json", True),
    ],
)
def test_globs(pattern: str, path: str, hit: bool) -> None:
    assert Glob.of(pattern).matches(path) is hit


def test_search_goes_upward_and_prefers_schemac_toml(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    assert find_config(nested) is None  # a pyproject.toml without [tool.schemac] is not ours
    (tmp_path / "pyproject.toml").write_text("[tool.schemac]\nstrict-formats = true\n")
    assert find_config(nested) == tmp_path / "pyproject.toml"
    (tmp_path / "a" / "schemac.toml").write_text("upgrade-drafts = true\n")
    config = load_config(start=nested)
    assert config.source == tmp_path / "a" / "schemac.toml"
    assert (config.upgrade_drafts, config.strict_formats) == (True, None)


@pytest.mark.parametrize(
    "text, message",
    [
        ("strict-format = true\n", "unknown key(s) strict-format"),
        ("strict-formats = 'yes'\n", "must be true or false"),
        ("include = 'a.json'\n", "list of glob strings"),
        ("per-file-ignores = {'a.json' = ['no-such-code']}\n", "unknown code(s) no-such-code"),
        ("strict-formats = \n", "invalid TOML"),
        ("key-order = 'sorted'\n", "'key-order' must be \"schema\", \"properties\" or \"any\", not 'sorted'"),
        ("key-order = true\n", "'key-order' must be \"schema\", \"properties\" or \"any\", not True"),
    ],
)
def test_bad_configuration_is_a_usage_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "schemac.toml").write_text(text)
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config()
    write(tmp_path / "ok.json", OK)
    result = run("check", "ok.json")
    assert result.exit_code == 2 and message in result.stderr


def test_config_flags_apply_and_command_line_overrides(tmp_path: Path) -> None:
    write(tmp_path / "d7.json", DRAFT7)
    write(tmp_path / "color.json", COLOR)
    (tmp_path / "schemac.toml").write_text("upgrade-drafts = true\nstrict-formats = true\n")
    assert run("check", "d7.json").exit_code == 0
    assert run("check", "--no-upgrade-drafts", "d7.json").exit_code == 1
    assert run("check", "color.json").exit_code == 1
    assert run("check", "--no-strict-formats", "color.json").exit_code == 0


def test_config_key_order_applies_and_command_line_overrides(tmp_path: Path) -> None:
    from schemac.artifact import Artifact

    write(tmp_path / "s.json", {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                "required": ["a", "b"]})

    def compiled(*flags: str) -> str:
        assert run("compile", *flags, "s.json", "-o", "out").exit_code == 0
        return str(Artifact.load(tmp_path / "out" / "s.schemac.json").options["key_order"])

    assert compiled() == "schema"  # no configuration: the default
    (tmp_path / "schemac.toml").write_text('key-order = "any"\n')
    assert load_config().key_order == "any"
    assert compiled() == "any"
    assert compiled("--key-order", "schema") == "schema"
    (tmp_path / "schemac.toml").write_text('key-order = "schema"\n')
    assert compiled("--key-order", "any") == "any"


def test_key_order_choices_match_the_compiler() -> None:
    """The command line and the configuration spell the compiler's choices without importing it."""
    from schemac.cli.options import KEY_ORDERS as FLAG_CHOICES
    from schemac.config import KEY_ORDERS as CONFIG_CHOICES
    from schemac.emit.lark.object_free import MAX_FREE_KEYS
    from schemac.pipeline import KEY_ORDERS

    assert FLAG_CHOICES == CONFIG_CHOICES == KEY_ORDERS
    assert f"at most {MAX_FREE_KEYS} listed keys" in " ".join(run("check", "--help").stdout.split())


def test_include_and_exclude_filter_walked_files_and_exclude_alone_skips_named_ones(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "a.json", OK)
    write(tmp_path / "schemas" / "fixtures" / "f.json", REMOTE)
    write(tmp_path / "package.json", {"name": "not a schema", "version": "1.0.0"})
    (tmp_path / "pyproject.toml").write_text(
        '[tool.schemac]\ninclude = ["schemas/**"]\nexclude = ["**/fixtures/**"]\n'
    )
    code, data = report("check", ".")
    assert code == 0 and [s["path"] for s in data["schemas"]] == ["schemas/a.json"]
    # a named file is always checked (include never hides it); exclude skips it with a note
    named = run("check", "--format", "json", "package.json", "schemas/fixtures/f.json", "schemas/a.json")
    assert [s["path"] for s in __import__("json").loads(named.stdout)["schemas"]] == ["package.json", "schemas/a.json"]
    assert named.stderr == ("note: schemas/fixtures/f.json: not checked, though named: excluded by the "
                            "configuration's exclude glob '**/fixtures/**'\n")
    nothing = run("check", "schemas/fixtures/f.json")
    assert nothing.exit_code == 0 and nothing.stdout == ""
    assert nothing.stderr.splitlines() == [
        "note: schemas/fixtures/f.json: not checked, though named: excluded by the configuration's exclude glob "
        "'**/fixtures/**'",
        "No schemas found in schemas/fixtures/f.json: looked for *.json, *.yaml and *.yml files "
        "(1 left out; --show-files lists them and why)."]
    # without PATHS: the include globs say what to check
    code, data = report("check")
    assert code == 0 and [s["path"] for s in data["schemas"]] == ["schemas/a.json"]


def test_per_file_ignores(tmp_path: Path) -> None:
    write(tmp_path / "schemas" / "legacy" / "old.json", COLOR)
    write(tmp_path / "schemas" / "legacy" / "remote.json", REMOTE)
    write(tmp_path / "schemas" / "new.json", COLOR)
    (tmp_path / "schemac.toml").write_text(
        'strict-formats = true\n'
        '[per-file-ignores]\n"schemas/legacy/*.json" = ["unknown-format", "remote-ref"]\n'
    )
    code, data = report("check", "schemas")
    by_path = {s["path"]: s for s in data["schemas"]}
    assert code == 1  # new.json is not covered: unknown-format stays an error there
    assert by_path["schemas/new.json"]["status"] == "rejected"
    old = by_path["schemas/legacy/old.json"]
    assert old["status"] == "ok" and old["diagnostics"] == [] and old["suppressed"] == 1
    remote = by_path["schemas/legacy/remote.json"]
    assert remote["status"] == "ignored" and remote["suppressed"] == 1
    assert run("check", "schemas/legacy").exit_code == 0
    # compile: an ignored error still leaves no artifact, so it fails there; unknown-format does not
    code, data = report("compile", "schemas/legacy", "-o", "out")
    by_path = {s["path"]: s for s in data["schemas"]}
    assert code == 1
    assert by_path["schemas/legacy/old.json"]["artifact"] == "out/old.schemac.json"
    assert by_path["schemas/legacy/remote.json"]["diagnostics"][0]["code"] == "remote-ref"


def test_explicit_config_file(tmp_path: Path) -> None:
    write(tmp_path / "d7.json", DRAFT7)
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "my.toml").write_text("upgrade-drafts = true\n")
    assert run("check", "--config", "conf/my.toml", "d7.json").exit_code == 0
    assert run("check", "--config", "conf/none.toml", "d7.json").exit_code == 2
