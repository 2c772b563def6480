"""`.gitignore` rules for the folder walk, so `schemac check .` sees what the repository holds.

The subset of gitignore(5) that repositories use: `#` comments, `!` re-includes, a trailing `/`
for folders only, a leading or inner `/` anchoring the pattern at its file's folder, `*`, `?`,
`[...]` and `**`. Each folder's `.gitignore` applies below it, later rules win, and an ignored
folder is not entered (git cannot re-include a file inside one either). Files named on the
command line are always checked: only the walk is filtered.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from schemac.config import glob_regex


@dataclass(frozen=True)
class Rule:
    base: str  # the folder of the .gitignore, relative to the walk root ('' for the root)
    regex: re.Pattern[str]
    anchored: bool
    negated: bool
    folders_only: bool

    def matches(self, rel: str, is_dir: bool) -> bool:
        """`rel`: the path relative to the walk root, '/'-separated."""
        if self.folders_only and not is_dir:
            return False
        if self.base:
            if not rel.startswith(self.base + "/"):
                return False
            rel = rel[len(self.base) + 1:]
        target = rel if self.anchored else rel.rsplit("/", 1)[-1]
        return self.regex.match(target) is not None


def parse(text: str, base: str) -> list[Rule]:
    """The rules of one `.gitignore` whose folder is `base` (relative to the walk root)."""
    rules: list[Rule] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated or line.startswith("\\"):
            line = line[1:]
        folders_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        rules.append(Rule(base, glob_regex(line), anchored, negated, folders_only))
    return rules


def ignored(rules: list[Rule], rel: str, is_dir: bool) -> bool:
    """Whether the last rule matching `rel` ignores it."""
    verdict = False
    for rule in rules:
        if rule.matches(rel, is_dir):
            verdict = not rule.negated
    return verdict


def read_rules(folder: Path, base: str) -> list[Rule]:
    """`folder/.gitignore`'s rules ([] when there is none or it cannot be read)."""
    try:
        text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    return parse(text, base)
