"""Build the training corpus: fetch each pinned package, keep its library sources with every comment and docstring
blanked (and, beside them, as they are), and turn each documented function into a (query, gold snippet) line.

Why the gold is the engine's own snippet: the model is trained to score what the engine will show it, so the
answer to a query is the snippet `chunk_file` cuts around the function in the stripped file (the function
itself, or the small class holding it), never a span the engine could not return. A function longer than one
snippet is left out: no single snippet holds it.

Why a cap per package and no duplicates: a big package would otherwise dominate what the model learns, and two
functions with the same doc sentence (overloads, the same method on several types) make a query with two right
answers, so both are dropped; near duplicates after that keep only the first of the seeded order.

Each package's result goes to `bench/.corpora/train/.parts/<name>.json` (stamped with its pin, cap and seed);
`queries.jsonl` is assembled from the parts of every current pin, so `--only NAME` rebuilds one package and
keeps the others. Nothing here is committed: `bench/.corpora/` is git-ignored.
"""

from __future__ import annotations

import ast
import json
import random
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from bench.corpora import CORPORA_DIR, fetch, unpack
from bench.quality.docstrings import strip_python
from bench.train import queries
from bench.train.comments import ParsedFile
from bench.train.pins import PINS, Pin, excluded_by
from bench.train.summary import Row, table, write_readme
from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.chunking.snippet import Snippet

TRAIN_DIR = CORPORA_DIR / "train"
PARTS_DIR = TRAIN_DIR / ".parts"
"""Outside every package's tree, so a search of `train/<name>` never sees it."""
QUERIES_PATH = TRAIN_DIR / "queries.jsonl"
SOURCE_DIR = CORPORA_DIR / "train-source"
"""The same library files as `train/<name>/` with their comments and docstrings, as a project holds them: what a
question asked of real code is asked of (`bench/train/newcomer/`), each line at the number it has in the stripped
tree."""

DEFAULT_CAP = 150
DEFAULT_SEED = 0
NEAR_DUPLICATE = 0.8
"""Jaccard similarity of two queries' word sets above which the second is not kept."""
MAX_FILE_BYTES = 512_000
"""Larger source files are generated tables or single-file bundles, not code a person writes and documents."""
MAX_LINE = 1000
"""A line this long is minified code or embedded data."""
CALLABLE = frozenset({"function", "method", "constructor"})
WRAPPED = frozenset({"variable", "constant"})
"""Also callable when its value is a function passed through a call (`var add = _curry2(function add() {})`),
which `ParsedFile.has_body` tells."""

LANGUAGE_OF_SUFFIX = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".rb": "ruby",
    ".java": "java",
}
_SKIP_DIRS = frozenset(
    "tests test __tests__ spec specs testdata fixtures __fixtures__ __mocks__ mocks e2e bench benches benchmark "
    "benchmarks example examples doc docs vendor vendored _vendor third_party thirdparty node_modules dist build "
    "min umd bundles scripts ci".split()
)
_TEST_FILE = re.compile(
    r"^test_.*\.(?:py|rb)$|_tests?\.(?:py|go|rb)$|_spec\.rb$|\.(?:test|spec)\.[cm]?[jt]sx?$|Tests?\.java$|^conftest\.py$"
)
_NOT_LIBRARY_FILE = re.compile(
    r"\.min\.[cm]?js$|[-.]bundle\.js$|\.d\.[cm]?ts$|_pb2\.py$|\.pb\.go$|^(?:setup|noxfile)\.py$"
)
_GENERATED = re.compile(
    r"code generated|do not edit|@generated|auto-?generated|this file (?:is|was) (?:automatically )?generated",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Query:
    path: str
    start_line: int
    """The gold snippet's lines."""
    end_line: int
    symbol: str
    language: str
    query: str
    declaration: tuple[int, int]
    """The function's own lines inside the gold snippet, which may be a whole small class: lets training crop
    the snippet around the function when it is longer than the model's input."""


@dataclass(frozen=True, slots=True)
class _FileResult:
    stripped: str
    snippets: int
    documented: int
    candidates: list[Query]


def language_of(path: str) -> str | None:
    return LANGUAGE_OF_SUFFIX.get(PurePosixPath(path).suffix)


def is_library_source(rel: str, pin: Pin) -> bool:
    """Whether the tree-relative file `rel` is library code: a source file outside tests, examples, docs,
    vendored and built folders, and not a test, a type declaration, a bundle or a build script."""
    if language_of(rel) is None or any(rel.startswith(prefix) for prefix in pin.skip):
        return False
    *folders, name = PurePosixPath(rel).parts
    if any(f in _SKIP_DIRS or f.startswith((".", "test")) for f in folders):
        return False
    return not (_TEST_FILE.search(name) or _NOT_LIBRARY_FILE.search(name))


def is_generated(text: str) -> bool:
    """Marked generated in its first lines, minified, or embedded data."""
    head = "\n".join(text.split("\n", 10)[:10])
    return bool(_GENERATED.search(head)) or any(len(line) > MAX_LINE for line in text.split("\n"))


def gold_snippet(snippets: Sequence[Snippet], qualified_name: str, start_line: int, end_line: int) -> Snippet | None:
    """The smallest snippet that holds the whole declaration: its own, a declaration's around it, or the line
    window the engine cuts where it has no declaration snippet (an object literal's methods)."""
    holding = [
        s
        for s in snippets
        if s.start_line <= start_line
        and s.end_line >= end_line
        and (s.symbol is None or s.symbol == qualified_name or qualified_name.startswith(s.symbol + "."))
    ]
    return min(holding, key=lambda s: s.end_line - s.start_line, default=None)


def _is_stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body of only a docstring, `pass`, `...` or `raise NotImplementedError`: an interface, not behavior."""
    for stmt in node.body:
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if isinstance(stmt, ast.Raise) and "NotImplementedError" in ast.unparse(stmt):
            continue
        return False
    return True


def _python_file(rel: str, text: str) -> _FileResult:
    stripped = strip_python(text)
    ast.parse(stripped)  # the copy must still be Python, or the engine would chunk it into windows
    docs: dict[int, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_stub(node):
            doc = ast.get_docstring(node)
            if doc:
                docs[node.lineno] = doc
    chunked = chunk_file(rel, stripped)
    documented = 0
    candidates: list[Query] = []
    for decl in chunked.declarations:
        doc = docs.get(decl.name_line) if decl.kind in CALLABLE else None
        if doc is None:
            continue
        documented += 1
        query = queries.clean(doc, decl.name)
        gold = gold_snippet(chunked.snippets, decl.qualified_name, decl.start_line, decl.end_line)
        if query and gold:
            span = (decl.start_line, decl.end_line)
            candidates.append(Query(rel, gold.start_line, gold.end_line, decl.qualified_name, "python", query, span))
    return _FileResult(stripped, len(chunked.snippets), documented, candidates)


def _tree_sitter_file(rel: str, text: str, language: str) -> _FileResult:
    parsed = ParsedFile(language, text)
    chunked = chunk_file(rel, parsed.stripped)
    label = "typescript" if language == "tsx" else language
    documented = 0
    candidates: list[Query] = []
    for decl in chunked.declarations:
        if decl.kind not in CALLABLE | WRAPPED:
            continue
        raw = parsed.doc_above(decl.start_line)
        if raw is None or not parsed.has_body(decl.name_line, decl.name_column, decl.start_line, decl.end_line):
            continue
        documented += 1
        query = queries.clean(queries.prose(raw), decl.name)
        gold = gold_snippet(chunked.snippets, decl.qualified_name, decl.start_line, decl.end_line)
        if query and gold:
            span = (decl.start_line, decl.end_line)
            candidates.append(Query(rel, gold.start_line, gold.end_line, decl.qualified_name, label, query, span))
    return _FileResult(parsed.stripped, len(chunked.snippets), documented, candidates)


def process_file(rel: str, text: str) -> _FileResult:
    """The stripped copy of one source file and its query candidates; raises ValueError, SyntaxError or
    `tokenize.TokenError` when its parser refuses it."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # each of these ends one line, as editors count
    language = language_of(rel)
    if language == "python":
        return _python_file(rel, text)
    assert language is not None
    return _tree_sitter_file(rel, text, language)


def _word_set(query: str) -> frozenset[str]:
    return frozenset(queries.name_words(query))


def sample(candidates: Iterable[Query], cap: int, seed: int, name: str) -> tuple[int, list[Query]]:
    """How many candidates are unique, and a seeded sample of at most `cap` of them without near duplicates.

    Queries with the same word set are all dropped (which of their functions is meant cannot be told); of two
    near duplicates, the one first in the seeded order is kept.
    """
    candidates = list(candidates)
    counts = Counter(_word_set(c.query) for c in candidates)
    unique = [c for c in candidates if counts[_word_set(c.query)] == 1]
    order = unique[:]
    random.Random(f"{seed}:{name}").shuffle(order)
    picked: list[Query] = []
    picked_words: list[frozenset[str]] = []
    for candidate in order:
        if len(picked) == cap:
            break
        words = _word_set(candidate.query)
        if any(len(words & other) >= NEAR_DUPLICATE * len(words | other) for other in picked_words):
            continue
        picked.append(candidate)
        picked_words.append(words)
    picked.sort(key=lambda q: (q.path, q.start_line, q.symbol))
    return len(unique), picked


def _stamp(pin: Pin, cap: int, seed: int) -> dict[str, object]:
    return {"spec": pin.source.spec, "sha256": pin.source.sha256, "skip": list(pin.skip), "cap": cap, "seed": seed}


def build_package(pin: Pin, cap: int, seed: int, log: Callable[[str], None] = print) -> Row:
    """Fetch, strip and sample one package into `train/<name>/` (its library files as they are into
    `train-source/<name>/`) and its part file."""
    project = excluded_by(pin.name, pin.source.name, pin.source.top)
    if project is not None:
        raise ValueError(f"{pin.name} is the excluded project {project}")
    archive = fetch(pin.source, log)
    tree, source = TRAIN_DIR / pin.name, SOURCE_DIR / pin.name
    for folder in (tree, source):
        if folder.exists():
            shutil.rmtree(folder)
    files = refused = snippets = documented = 0
    candidates: list[Query] = []
    TRAIN_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=TRAIN_DIR, prefix=".unpack-") as tmp:
        raw = Path(tmp)
        unpack(archive, pin.source, raw)
        for path in sorted(p for p in raw.rglob("*") if p.is_file()):
            rel = path.relative_to(raw).as_posix()
            if not is_library_source(rel, pin) or path.stat().st_size > MAX_FILE_BYTES:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            if is_generated(text):
                continue
            try:
                result = process_file(rel, text)
            except (ValueError, SyntaxError, RecursionError, tokenize.TokenError):
                refused += 1
                continue
            for folder, content in ((tree, result.stripped), (source, text)):
                target = folder / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
            files += 1
            snippets += result.snippets
            documented += result.documented
            candidates.extend(result.candidates)
    usable, picked = sample(candidates, cap, seed, pin.name)
    row = Row(pin.name, pin.language, pin.source.version, files, refused, snippets, documented, usable, len(picked))
    PARTS_DIR.mkdir(parents=True, exist_ok=True)
    part = {"stamp": _stamp(pin, cap, seed), "row": asdict(row), "queries": [asdict(q) for q in picked]}
    (PARTS_DIR / f"{pin.name}.json").write_text(json.dumps(part))
    return row


def assemble(cap: int, seed: int) -> tuple[list[Row], list[str]]:
    """Write `queries.jsonl` from the current part of every pin; the rows, and the pins that have none."""
    rows: list[Row] = []
    missing: list[str] = []
    lines: list[str] = []
    for pin in PINS:
        part_path = PARTS_DIR / f"{pin.name}.json"
        part = json.loads(part_path.read_text()) if part_path.exists() else None
        if part is None or part["stamp"] != _stamp(pin, cap, seed):
            missing.append(pin.name)
            continue
        rows.append(Row(**part["row"]))
        for q in part["queries"]:
            gold = [{"path": q["path"], "start_line": q["start_line"], "end_line": q["end_line"]}]
            line = {"corpus": f"train/{pin.name}", "query": q["query"], "gold": gold}
            extra = {"language": q["language"], "symbol": q["symbol"], "declaration": q["declaration"]}
            lines.append(json.dumps({**line, **extra}))
    QUERIES_PATH.write_text("".join(f"{line}\n" for line in lines))
    return rows, missing


def build(names: Sequence[str], cap: int, seed: int, log: Callable[[str], None] = print) -> int:
    """Build the named packages, assemble the queries, print the summary; 1 when a package failed."""
    started = time.perf_counter()
    failed: list[str] = []
    pins = [pin for pin in PINS if pin.name in names]
    for pin in pins:
        begun = time.perf_counter()
        try:
            r = build_package(pin, cap, seed, log)
        except (RuntimeError, OSError, ValueError, subprocess.SubprocessError, tarfile.TarError) as error:
            # a fetch, checksum or unpacking failure: report it and go on with the other packages
            log(f"{pin.name}: FAILED: {error}")
            failed.append(pin.name)
            continue
        log(
            f"{pin.name:18} {r.language:10} {r.files:5} files {r.snippets:6} snippets {r.documented:5} documented"
            f" {r.usable:5} usable {r.queries:4} queries  {time.perf_counter() - begun:5.1f}s"
        )
    rows, missing = assemble(cap, seed)
    seconds = time.perf_counter() - started
    log("")
    log(table(rows))
    log(f"\n{sum(r.queries for r in rows):,} queries -> {QUERIES_PATH}  ({seconds:.0f} s)")
    if missing:
        log(f"not built (or built with another pin, cap or seed): {', '.join(missing)}")
    elif len(pins) == len(PINS) and not failed:
        write_readme(rows, seconds)
        log("summary and pins written to bench/train/README.md")
    if failed:
        log(f"failed: {', '.join(failed)}")
    return 1 if failed else 0
