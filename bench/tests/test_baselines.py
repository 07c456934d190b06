"""The baselines on a tiny tree, with a 60-line window chunker standing in for the engine's."""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.quality.baselines import Bm25Baseline, list_files, query_words, rg_rank, tokenize


@dataclass(frozen=True)
class Window:
    path: str
    start_line: int
    end_line: int
    text: str


def windows(path: str, text: str, size: int = 60, overlap: int = 10) -> Sequence[Window]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    out = []
    for i in range(0, max(len(lines) - overlap, 1), size - overlap):
        part = lines[i : i + size]
        if "\n".join(part).strip():
            out.append(Window(path, i + 1, i + len(part), "\n".join(part)))
    return out


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    filler = "\n".join(f"x_{i} = {i}" for i in range(100))
    (tmp_path / "pkg" / "retry.py").write_text(
        filler + "\n\ndef retryRequest(url):\n    # retry the request with exponential backoff\n    return url\n"
    )
    (tmp_path / "pkg" / "colors.py").write_text("def paint(text):\n    return '\\033[31m' + text  # red color\n")
    (tmp_path / "README.md").write_text("Nothing about the query here.\n")
    (tmp_path / "blob.bin").write_bytes(b"\0\1\2 retry")
    return tmp_path


def test_query_words_drop_stopwords_and_short_words():
    assert query_words("Where do we retry a request, with backoff? retry!") == ["retry", "request", "backoff"]


def test_tokenize_splits_identifiers():
    assert tokenize("getAppDir snake_case") == ["getappdir", "get", "app", "dir", "snake", "case"]


def test_rg_ranks_files_by_distinct_words(tree: Path):
    result = rg_rank(tree, "retry the request with backoff and color")
    assert result.hits[0] == ("pkg/retry.py", 103, 103)
    assert result.hits[1][0] == "pkg/colors.py"
    assert result.shortlist[0] == ("pkg/retry.py", 103, 103)
    assert rg_rank(tree, "the and of").hits == ()


def test_bm25_over_windows(tree: Path):
    assert "pkg/retry.py" in list_files(tree)
    baseline = Bm25Baseline(tree, chunker=windows)
    spans = baseline.spans
    assert ("pkg/retry.py", 51, 104) in spans and ("pkg/retry.py", 1, 60) in spans
    assert not any(s[0] == "blob.bin" for s in spans)
    result = baseline.search("retry a request with exponential backoff", limit=1, shortlist=3)
    assert result.hits == (("pkg/retry.py", 51, 104),)
    assert len(result.shortlist) <= 3 and result.shortlist[0] == result.hits[0]
    assert baseline.search("zebra").hits == ()
