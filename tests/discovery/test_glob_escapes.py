"""Globs with escapes match what `rg --files -g` matches: a backslash makes the next character literal."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from smartsearch_ls.discovery.globs import GlobSet
from smartsearch_ls.discovery.ripgrep import find_rg

NAMES = ("a*b.txt", "axb.txt", "a\\xb.txt", "a?b.txt", "a[b.txt", "ab.txt", "a{b.txt", "a\\b.txt", "acb.txt")
GLOBS = (
    r"a\*b.txt",
    r"a\?b.txt",
    r"a\[b.txt",
    r"a\{b.txt",
    r"a\xb.txt",
    r"a\\b.txt",
    r"a*b.txt",
    r"a?b.txt",
    r"*\**\**\**",  # several wildcard runs: the RE2 side
)


@pytest.mark.parametrize("glob", GLOBS)
def test_escapes_match_as_ripgrep_matches(tmp_path: Path, glob: str) -> None:
    for name in NAMES:
        (tmp_path / name).write_text("x")
    listed = subprocess.run(
        [find_rg(), "--files", "--no-require-git", "-g", glob, "."], cwd=tmp_path, capture_output=True, text=True
    )
    expected = {line.removeprefix("./") for line in listed.stdout.splitlines()}
    assert {name for name in NAMES if GlobSet.of([glob]).matches(name)} == expected, listed.stderr
