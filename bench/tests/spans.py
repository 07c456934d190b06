"""Hand-written gold spans checked against the code they name, for every question set written by reading code.

What keeps hand-written line numbers honest: each gold span must start on a declaration (or a decorator, an
attribute, a doc comment, an object member, a generic TypeScript method, a modifier such as `public` or `unsafe`, or
line 1 for a whole file) and end inside the file, and that file must be one the engine lists: a span in a file that
ignore rules hide can never be found, and its question would be scored, and fitted on, as if the behavior were absent
(the corpora sit inside this repository, whose own ignore rules ripgrep also applies to them).
"""

import re
from collections.abc import Iterable
from pathlib import Path

from bench.quality.metrics import QueryCase
from smartsearch_ls.discovery.ripgrep import list_files

DECLARATION_START = re.compile(
    r"^\s*(@|def |async def |class |module |export |function |const |let |var |/\*\*|///|//|#\[|# |#$|import "
    r"|func |type |fn |pub |impl\b|struct |enum |trait |static |async |get |set |unsafe |public |private |protected "
    r"|[\w$.]+\s*(?:<[^()]*>\s*)?[=(]|[\w$]+\s*:)"
)


def check_gold_spans(root: Path, cases: Iterable[QueryCase]) -> None:
    """Assert that every gold span of `cases` lies in a file the engine lists under `root`, starts on a declaration of
    it and ends inside it."""
    listed = set(list_files(root).paths)
    for case in cases:
        for path, start, end in case.gold:
            assert path in listed, (case.query, path, "not listed: an ignore rule hides it")
            lines = (root / path).read_text(encoding="utf-8").split("\n")
            assert end <= len(lines), (case.query, path)
            assert start == 1 or DECLARATION_START.match(lines[start - 1]), (case.query, path, lines[start - 1])


def check_closest(root: Path, closest: str) -> None:
    """Assert that an absent behavior's `closest` code (`path:start-end`, or `none`) lies inside its file under
    `root`."""
    if closest == "none":
        return
    path, lines = closest.rsplit(":", 1)
    start, end = (int(n) for n in lines.split("-"))
    assert 1 <= start <= end <= len((root / path).read_text(errors="replace").splitlines()), closest
