"""Two baselines the engine has to beat, run over the same corpora and scored by the same metrics.

Why two: `rg` ranking is what a developer (or an agent) does without this tool, grep for the query's words and
look at the files with the most of them; plain BM25 over the engine's own snippets is the engine minus its
judge, so the gap between it and the engine is exactly what the judge is worth.

Both return `QueryResult`s (see `metrics.py`): hits best first, and for BM25 the ranked shortlist too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from bench.quality.metrics import QueryResult, Span
from smartsearch_ls.discovery.documentation import is_documentation

STOPWORDS = frozenset(
    """a an and are as at be by can do does for from how i if in into is it its of on or so that the their them
    then there these this to was we what when where which while who why will with without you your
    find code get set make where's""".split()
)
"""Words too common to help either baseline: a query is plain English, and these are its glue."""

MAX_FILE_BYTES = 1024 * 1024
"""Files above this are skipped by both baselines, as the engine and the peer skip them."""

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def rg_binary() -> str:
    """The `rg` next to this interpreter (the ripgrep wheel installs it there), else the one on PATH."""
    beside = Path(sys.executable).parent / "rg"
    if beside.exists():
        return str(beside)
    found = shutil.which("rg")
    if found is None:
        raise FileNotFoundError("ripgrep (`rg`) not found: install the `ripgrep` wheel into this venv")
    return found


def query_words(query: str) -> list[str]:
    """The query's distinct lower-case words of 3+ characters, stopwords dropped, in query order."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        if len(word) >= 3 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, with identifiers also split into their parts (`getAppDir` -> get, app, dir).

    Splitting identifiers is the one concession to code: without it no English word would ever match a
    camelCase or snake_case name, and the baseline would measure the tokenizer rather than BM25.
    """
    out: list[str] = []
    for word in _WORD.findall(text):
        lower = word.lower()
        out.append(lower)
        parts = _CAMEL.findall(word)
        if len(parts) > 1:
            out.extend(p.lower() for p in parts)
    return out


# --- rg ---------------------------------------------------------------------------------------------------


def rg_rank(root: Path, query: str, *, limit: int = 10, shortlist: int = 128) -> QueryResult:
    """Rank files by how many distinct query words they contain (case-insensitive substrings), then by matching
    lines; each file is answered with its line that has the most distinct words. The shortlist is the matching
    lines ranked the same way, one line per span.
    """
    words = query_words(query)
    if not words:
        return QueryResult(())
    args = [rg_binary(), "--no-heading", "--with-filename", "--line-number", "--ignore-case", "--fixed-strings"]
    args += ["--max-filesize", str(MAX_FILE_BYTES), "--no-messages"]
    for word in words:
        args += ["-e", word]
    proc = subprocess.run([*args, "."], cwd=root, capture_output=True, text=True, errors="replace", check=False)
    per_file: dict[str, dict[int, int]] = {}
    file_words: dict[str, set[str]] = {}
    for line in proc.stdout.splitlines():
        path, _, rest = line.partition(":")
        number, _, text = rest.partition(":")
        if not number.isdigit():
            continue
        lower = text.lower()
        present = {w for w in words if w in lower}
        path = path.removeprefix("./")
        per_file.setdefault(path, {})[int(number)] = len(present)
        file_words.setdefault(path, set()).update(present)
    ranked_files = sorted(per_file, key=lambda p: (-len(file_words[p]), -len(per_file[p]), p))
    hits: list[Span] = []
    for path in ranked_files[:limit]:
        lines = per_file[path]
        best = min(lines, key=lambda n: (-lines[n], n))
        hits.append((path, best, best))
    all_lines = [
        (path, n, count, len(file_words[path])) for path, lines in per_file.items() for n, count in lines.items()
    ]
    all_lines.sort(key=lambda t: (-t[2], -t[3], t[0], t[1]))
    return QueryResult(tuple(hits), tuple((p, n, n) for p, n, _, _ in all_lines[:shortlist]))


# --- BM25 over the engine's snippets ---------------------------------------------------------------------


class SnippetLike(Protocol):
    path: str
    start_line: int
    end_line: int
    text: str


Chunker = Callable[[str, str], Sequence[SnippetLike]]
"""`(relative_path, text) -> snippets`: what the baseline needs from a chunker."""


def engine_chunker() -> Chunker:
    """The engine's own chunker, so the baseline judges exactly the snippets the engine would shortlist."""
    from smartsearch_ls.chunking.chunker import chunk_file  # the engine's API; lands with the chunker

    def chunk(path: str, text: str) -> Sequence[SnippetLike]:
        return chunk_file(path, text).snippets

    return chunk


def list_files(root: Path) -> list[str]:
    """Files as ripgrep lists them (ignore rules honoured, hidden skipped), sorted, relative, '/'-separated."""
    proc = subprocess.run(
        [rg_binary(), "--files", "--sort", "path", "--max-filesize", str(MAX_FILE_BYTES)],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    return [line.removeprefix("./") for line in proc.stdout.splitlines() if line]


def text_files(root: Path, *, code_only: bool = False) -> Iterator[tuple[str, str]]:
    """`(path, text)` of every file `rg --files` lists under `root`, binary and non-UTF-8 files left out, as the
    engine leaves them out; `code_only` leaves prose documentation out too, as behavior searches do."""
    for rel in list_files(root):
        if code_only and is_documentation(rel):
            continue
        raw = (root / rel).read_bytes()
        if b"\0" in raw:
            continue
        try:
            yield rel, raw.decode("utf-8")
        except UnicodeDecodeError:
            continue


class Bm25Baseline:
    """Plain `rank_bm25.BM25Okapi` over every snippet of a corpus, built once and queried many times.

    Binary and non-UTF-8 files are skipped, as the engine skips them. `code_only` also skips prose documentation
    (`discovery.documentation`), as the engine's behavior searches do: the like-for-like baseline for them.
    """

    def __init__(self, root: Path, chunker: Chunker | None = None, *, code_only: bool = False) -> None:
        from rank_bm25 import BM25Okapi

        chunk = chunker or engine_chunker()
        self.root = root
        self.spans: list[Span] = []
        corpus: list[list[str]] = []
        for rel, text in text_files(root, code_only=code_only):
            for snippet in chunk(rel, text):
                # The path is part of a snippet's words, as it is in the engine's index.
                corpus.append(tokenize(f"{rel} {snippet.text}"))
                self.spans.append((snippet.path, snippet.start_line, snippet.end_line))
        self._bm25: Any = BM25Okapi(corpus) if corpus else None

    def search(self, query: str, *, limit: int = 10, shortlist: int = 128) -> QueryResult:
        """Top `limit` snippets as hits and top `shortlist` as the shortlist; snippets scoring 0 never rank."""
        if self._bm25 is None:
            return QueryResult(())
        tokens = [t for t in tokenize(query) if t not in STOPWORDS]
        if not tokens:
            return QueryResult(())
        scores = self._bm25.get_scores(tokens)
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
        ranked = tuple(self.spans[i] for i in order[: max(limit, shortlist)])
        return QueryResult(ranked[:limit], ranked[:shortlist])
