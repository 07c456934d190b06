"""The summary of a corpus build: a table per package, and the generated sections of `bench/train/README.md`.

Why generated: the README's figures and pins are then always those of the code that built the corpus; the recipe
around them is written by hand, between `<!-- BEGIN ... -->` and `<!-- END ... -->` markers left alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.train.pins import PINS

README_PATH = Path(__file__).resolve().parent / "README.md"


@dataclass(frozen=True, slots=True)
class Row:
    """One package's line of the summary table."""

    package: str
    language: str
    version: str
    files: int
    """Source files in the stripped tree."""
    refused: int
    """Source files left out because their parser refused them."""
    snippets: int
    documented: int
    """Functions and methods with a body and a doc comment."""
    usable: int
    """Of those, the ones whose doc made a query and whose function is one snippet, duplicates dropped."""
    queries: int


def table(rows: Sequence[Row]) -> str:
    """The summary as a Markdown table, with totals and the package count per language."""
    header = "| package | language | version | files | refused | snippets | documented | usable | queries |"
    out = [header, "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        out.append(
            f"| {r.package} | {r.language} | {r.version} | {r.files:,} | {r.refused:,} | {r.snippets:,} "
            f"| {r.documented:,} | {r.usable:,} | {r.queries:,} |"
        )
    total = [sum(getattr(r, f) for r in rows) for f in ("files", "refused", "snippets", "documented", "usable")]
    queries_total = sum(r.queries for r in rows)
    cells = " | ".join(f"{n:,}" for n in total)
    out.append(f"| **{len(rows)} packages** | | | {cells} | **{queries_total:,}** |")
    languages = Counter(r.language for r in rows)
    out.append("")
    out.append("Packages per language: " + ", ".join(f"{lang} {n}" for lang, n in sorted(languages.items())) + ".")
    by_language = Counter[str]()
    for r in rows:
        by_language[r.language] += r.queries
    out.append("Queries per package language: " + ", ".join(f"{k} {v:,}" for k, v in sorted(by_language.items())) + ".")
    return "\n".join(out)


def pins_table() -> str:
    out = ["| package | registry | pinned as | sha256 |", "| --- | --- | --- | --- |"]
    for pin in PINS:
        s = pin.source
        out.append(f"| {pin.name} | {s.registry} | `{s.spec}` | `{s.sha256}` |")
    return "\n".join(out)


def _replace_between(text: str, marker: str, body: str) -> str:
    begin, end = f"<!-- BEGIN {marker} -->", f"<!-- END {marker} -->"
    head, found, rest = text.partition(begin)
    if not found:
        raise ValueError(f"{README_PATH} has no {begin} marker")
    _, _, tail = rest.partition(end)
    return f"{head}{begin}\n{body}\n{end}{tail}"


def write_readme(rows: Sequence[Row], seconds: float) -> None:
    """Refresh the generated sections of `bench/train/README.md`; the recipe around them is written by hand."""
    text = README_PATH.read_text()
    summary = f"{table(rows)}\n\nLast full build: {seconds:.0f} s."
    text = _replace_between(text, "summary", summary)
    text = _replace_between(text, "pins", pins_table())
    README_PATH.write_text(text)
