"""Every relative link in README.md and docs/*.md resolves inside the repository.

A link is checked when it is not a URL (`https:`, `mailto:`, ...): its file must exist, inside the repository (so
README never points at a sibling checkout such as `../shared/`), and a `#fragment` into a Markdown file must name
one of its headings, slugged as GitHub slugs them. Links inside fenced code blocks and code spans are not links.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"(`+).*?\1")
_INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is None and opening:
            fence = opening.group(1)
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            yield number, line


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every inline, image and reference-style link outside code."""
    found = []
    for number, line in _prose_lines(text):
        if reference := _REFERENCE.match(line):
            found.append((number, reference.group(1)))
            continue
        found.extend((number, m.group(1)) for m in _INLINE_LINK.finditer(_CODE_SPAN.sub("", line)))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors on its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown text; a repeated heading gets `-1`, `-2`, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for _, line in _prose_lines(text):
        if heading := _HEADING.match(line):
            base = slug(heading.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with each relative link of `document`, as `file:line: target: reason`."""
    text = document.read_text(encoding="utf-8")
    problems = []
    for number, target in links(text):
        if _SCHEME.match(target):
            continue  # a URL: not the repository's to resolve
        where = f"{document.relative_to(root)}:{number}: {target}"
        path_part, _, fragment = target.partition("#")
        resolved = (document.parent / path_part).resolve() if path_part else document
        if not resolved.is_relative_to(root):
            problems.append(f"{where}: points outside the repository")
        elif not resolved.exists():
            problems.append(f"{where}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved.read_text(encoding="utf-8")):
            problems.append(f"{where}: no heading with that anchor in {resolved.relative_to(root)}")
    return problems


@pytest.mark.parametrize("document", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    assert broken_links(document) == []


def test_readme_and_docs_have_links_to_check() -> None:
    assert {p.name for p in DOCS} >= {"README.md", "protocol.md", "query-shapes.md", "design.md"}
    assert len(links((ROOT / "README.md").read_text(encoding="utf-8"))) >= 10


def test_the_check_reports_broken_links(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A heading, with `code`\n\n## Twice\n\n## Twice\n")
    (tmp_path / "README.md").write_text(
        "[ok](docs/there.md) [ok](docs/there.md#a-heading-with-code) [ok](docs/there.md#twice-1) [ok](#top)\n"
        "[web](https://example.org/x) `[code](missing.md)`\n"
        "```\n[fenced](missing.md)\n```\n"
        "# Top\n"
        "[gone](docs/gone.md) [outside](../shared/protocol.md) [anchor](docs/there.md#nowhere)\n"
        "[ref]: docs/also-gone.md\n"
    )
    problems = broken_links(tmp_path / "README.md", root=tmp_path)
    assert [p.split(": ", 1)[0] for p in problems] == ["README.md:7", "README.md:7", "README.md:7", "README.md:8"]
    assert [p.split(": ", 2)[2] for p in problems] == [
        "no such file",
        "points outside the repository",
        "no heading with that anchor in docs/there.md",
        "no such file",
    ]
