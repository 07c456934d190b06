"""Lexical index choice: our incremental BM25 next to tantivy, measured on the same snippets of one corpus.

Why this exists: the project's issue proposes tantivy (PyPI `tantivy`; reported elsewhere at ~1 ms per top-128
query over 29k snippets and ~80 ms per file update, persisted on disk) in place of `smartsearch_ls.index.bm25`.
Nobody had measured it here, so this puts both side by side on the snippets our chunker makes of `--corpus`:

1. cold build of the lexical index from already-chunked snippets. Ours: `text_terms`/`meta_terms`, then
   `Bm25Index.add`. Tantivy (a) given those very terms as whitespace-joined text (same terms and lengths, so
   the same BM25 inputs); (b) given raw snippet text, tokenized in Rust by regex + lowercase (+ stemmer)
   analyzers that approximate ours, to show what a native tokenizer would cost (not the same ranking); (c) given
   raw text and tantivy's built-in `default` analyzer, the floor of native tokenizing. Our full cold index
   (`RootIndex.refresh`, worker processes included, as `bench.engine` times it) is there for context.
2. top-128 latency over the behavior and docstring queries: ours by `shortlist` with BM25 alone, tantivy (a) by
   a should-query of the same `query_weights`, and how much the two top-128 lists agree.
3. one-file update, ~20 median-size files and the largest: ours as a keystroke (`update_text`) and a save
   (`apply_changes`); tantivy as read + chunk + terms + delete by path + add + commit + reload.
4. persisted size, and a restart: a fresh process opens the persisted index and answers one query.
5. peak RSS: every measurement runs in its own fresh process.

Engines alternate (ours, tantivy, ours, tantivy...) for `--rounds` rounds, and the load average is printed before
and after: the machine is shared and has 2 cores, so one round alone proves little.
`python -m bench.index_choice --corpus large` (after `python -m bench prepare`); figures go to
`bench/out/index-choice-<corpus>.json` and a markdown table to the terminal.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import pickle
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.__main__ import BENCH_DIR, OUT_DIR, resolve_root
from bench.corpora import CORPORA_DIR
from bench.engine import largest_file, ms, peak_rss_mb, queries, rss_mb
from smartsearch_ls.chunking.chunker import chunk_file
from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.discovery.reading import read_file
from smartsearch_ls.index import store
from smartsearch_ls.index.bm25 import META_BOOST, Bm25Index, _idf
from smartsearch_ls.index.root_index import RootIndex
from smartsearch_ls.index.shortlist import Scope, shortlist
from smartsearch_ls.index.terms import meta_terms, query_weights, text_terms

if TYPE_CHECKING:
    import tantivy

CANDIDATES = 128
HEAP_BYTES = 256_000_000
"""The tantivy writer's heap, split between its threads."""
WRITER_THREADS = 2
MEDIAN_FILES = 20
"""Files of about median size whose update is timed, besides the largest file."""
MEDIAN_REPEATS = 2
LARGEST_REPEATS = 5

WORDS = r"[A-Z]?[a-z]+|[A-Z]+|[0-9]+"
"""Rust's regex has no look-ahead, so `HTTPResponse` splits as `HTTPR esponse` (ours: `http respons`)."""
IDENTIFIERS = r"[A-Za-z0-9_]+"

WORKERS = ("ours-lexical", "tantivy-terms", "ours-index", "tantivy-raw", "ours-open", "tantivy-open", "tantivy-default")
"""One round, ours and tantivy alternating; each runs in a fresh process."""

Figures = dict[str, Any]

NOTES = """Medians over rounds, [min, max] when they differ. Several figures in a cell are in the order the row names.
(1) Ours' lexical build keeps its postings in memory; tantivy's build includes its commit to disk (add_document
only queues, so the commit waits for the indexing threads). Ours is pickled when persisted, apart.
(2) Restart: ours `load_persisted` + one `shortlist`; tantivy `Index.open` + searcher + one query. Ours also
loads snippets and declarations; a tantivy-based server would need those (and file stamps) from elsewhere.
(3) Ours: keystroke (`update_text`) / save (`apply_changes`). Tantivy: everything (read, chunk, terms, delete by
path, add, commit, reload) / its own part (delete, add, commit, reload).
(4) Ours: lexical index alone (pickle) / whole persisted index with snippets and declarations. Tantivy (a): after
the build / after the updates (merged).
(5) Ours' whole run is the RootIndex cold build (its worker processes, if any, not counted), warm start,
queries, updates; tantivy's is its build from the snippets, queries and updates. Every process imports the
same modules first."""


@dataclass(frozen=True, slots=True)
class Job:
    """What every worker process of one round is given (as JSON)."""

    root: str
    snippets: str
    """A pickle of the corpus's snippets, as our chunker made them."""
    median_files: list[str]
    largest_file: str
    queries: dict[str, list[str]]
    """Query set name -> queries."""
    work: str
    """This round's folder: our persisted index and the tantivy indexes live here."""
    keep_top: bool
    """Return each query's top-128 snippet keys, to compare the two rankings (first round only)."""


class Clock:
    """Wall and CPU seconds since the last lap; CPU counts every thread and every waited-for child process."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), _cpu()

    def lap(self) -> tuple[float, float]:
        wall, cpu = time.perf_counter(), _cpu()
        taken = (wall - self.wall, cpu - self.cpu)
        self.wall, self.cpu = wall, cpu
        return taken


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def percentiles(timings: list[float]) -> tuple[float, float]:
    """p50 and p95 in ms, p95 as `bench.engine` takes it."""
    return ms(statistics.median(timings)), ms(sorted(timings)[max(int(len(timings) * 0.95) - 1, 0)])


def key(snippet: Snippet) -> str:
    return f"{snippet.path}:{snippet.start_line}"


def load_snippets(job: Job) -> list[Snippet]:
    with open(job.snippets, "rb") as handle:
        snippets: list[Snippet] = pickle.load(handle)
    return snippets


def folder_mb(path: Path) -> float:
    return round(sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6, 1)


# -- ours ---------------------------------------------------------------------------------------------


def ours_lexical(job: Job) -> Figures:
    """Our lexical index alone, from chunked snippets: terms, then postings, the way a cold build makes them."""
    snippets = load_snippets(job)
    figures: Figures = {"rss_before_mb": rss_mb()}
    gc.disable()  # as the cold build does (`RootIndex._refresh`, `bulk.serve_shares`)
    clock = Clock()
    terms = [(text_terms(s.text), meta_terms(s.path, s.symbol)) for s in snippets]
    figures["terms_s"], figures["terms_cpu_s"] = clock.lap()
    index = Bm25Index()
    for body, meta in terms:
        index.add(body, meta)
    figures["index_s"], figures["index_cpu_s"] = clock.lap()
    figures["build_s"] = figures["terms_s"] + figures["index_s"]
    figures["build_cpu_s"] = figures["terms_cpu_s"] + figures["index_cpu_s"]
    figures["rss_after_build_mb"] = rss_mb()
    del terms
    persisted = Path(job.work) / "ours-lexical.pickle"
    clock.lap()
    with open(persisted, "wb") as handle:
        pickle.dump(index, handle, protocol=pickle.HIGHEST_PROTOCOL)
        handle.flush()
        os.fsync(handle.fileno())  # as tantivy's commit syncs
    figures["persist_s"] = clock.lap()[0]
    figures["size_mb"] = round(persisted.stat().st_size / 1e6, 1)
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def ours_index(job: Job) -> Figures:
    """Our whole index as `bench.engine` times it: cold build, persist, warm start, queries, one-file updates."""
    root, cache = Path(job.root), Path(job.work) / "ours-cache"
    figures: Figures = {}
    clock = Clock()
    index = RootIndex(root, cache_dir=cache)
    index.refresh()
    figures["cold_index_s"], figures["cold_index_cpu_s"] = clock.lap()
    figures["rss_after_cold_index_mb"] = rss_mb()
    index.persist()
    figures["persist_s"] = clock.lap()[0]
    figures["persisted_mb"] = round(store.index_path(cache, root).stat().st_size / 1e6, 1)
    del index
    gc.collect()

    clock.lap()
    warm = RootIndex(root, cache_dir=cache)
    warm.load_persisted()
    warm.refresh()
    figures["warm_start_s"] = clock.lap()[0]
    gc.freeze()  # as the server does once a folder is indexed
    figures["rss_after_warm_start_mb"] = rss_mb()

    def search(query: str) -> list[str]:
        return [key(c.snippet) for c in shortlist([Scope(warm)], query, CANDIDATES).candidates]

    figures.update(time_queries(job, search))

    keystrokes, saves = [], []
    for path in job.median_files:
        typed, saved = ours_updates(warm, root, path, MEDIAN_REPEATS)
        keystrokes += typed
        saves += saved
    figures["keystroke_median_file_ms"] = ms(statistics.median(keystrokes))
    figures["save_median_file_ms"] = ms(statistics.median(saves))
    typed, saved = ours_updates(warm, root, job.largest_file, LARGEST_REPEATS)
    figures["keystroke_largest_file_ms"] = ms(statistics.median(typed))
    figures["save_largest_file_ms"] = ms(statistics.median(saved))
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def ours_updates(index: RootIndex, root: Path, path: str, repeats: int) -> tuple[list[float], list[float]]:
    """Keystrokes (`update_text`) and saves (`apply_changes`) of one file (of the run's copy), then put back."""
    file = root / path
    original, stat = file.read_bytes(), file.stat()
    keystrokes, saves = [], []
    try:
        for i in range(repeats):
            started = time.perf_counter()
            index.update_text(path, original.decode() + f"\n# typed {i}\n")
            keystrokes.append(time.perf_counter() - started)
        index.revert(path)
        for i in range(repeats):
            file.write_bytes(original + f"\n# saved {i}\n".encode())
            started = time.perf_counter()
            index.apply_changes([path])
            saves.append(time.perf_counter() - started)
    finally:
        file.write_bytes(original)
        os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # so the persisted stamps still hold
        index.apply_changes([path])
    return keystrokes, saves


def ours_open(job: Job) -> Figures:
    """A restart: a fresh process loads the persisted index and answers a query, then re-stats the folder."""
    root, cache = Path(job.root), Path(job.work) / "ours-cache"
    first = next(iter(job.queries.values()))[0]
    clock = Clock()
    index = RootIndex(root, cache_dir=cache)
    if not index.load_persisted():
        raise RuntimeError(f"no persisted index under {cache}")
    figures: Figures = {"open_ms": ms(clock.lap()[0])}
    shortlist([Scope(index)], first, CANDIDATES)
    figures["first_query_ms"] = ms(clock.lap()[0])
    figures["open_and_query_ms"] = round(figures["open_ms"] + figures["first_query_ms"], 1)
    index.refresh()  # what a restart does before trusting the index: list with rg, stat every file
    figures["refresh_ms"] = ms(clock.lap()[0])
    with open(Path(job.work) / "ours-lexical.pickle", "rb") as handle:
        pickle.load(handle)  # the lexical index alone, as `ours_lexical` persisted it
    figures["open_lexical_ms"] = ms(clock.lap()[0])
    figures["rss_after_open_mb"] = rss_mb()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


# -- tantivy ------------------------------------------------------------------------------------------


def terms_schema(tv: Any) -> tantivy.Schema:
    """Variant (a): our terms, whitespace-joined; `body` keeps frequencies, `meta` only which documents."""
    builder = tv.SchemaBuilder()
    builder.add_text_field("body", tokenizer_name="whitespace", index_option="freq")
    builder.add_text_field("meta", tokenizer_name="whitespace", index_option="basic")
    builder.add_text_field("path", tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("id", fast=True)
    return builder.build()


def terms_document(tv: Any, snippet: Snippet, doc_id: int, body: dict[str, int], meta: Iterable[str]) -> Any:
    """A document of variant (a): each term repeated as often as it occurs, so tf and length equal ours."""
    document = tv.Document()
    document.add_text("body", " ".join([term for term, times in body.items() for _ in range(times)]))
    document.add_text("meta", " ".join(meta))
    document.add_text("path", snippet.path)
    document.add_unsigned("id", doc_id)
    return document


def weighted_query(tv: Any, index: tantivy.Index, searcher: tantivy.Searcher, query: str) -> tantivy.Query:
    """`Bm25Index.scores` as a tantivy query: each term's BM25 boosted by its weight, plus the meta bonus.

    The bonus is a constant `weight * META_BOOST * idf(meta)` per matching document, as ours; tantivy cannot
    compute it itself (a `basic` field still scores BM25 with a length norm), so its idf is looked up here.
    """
    schema, should = index.schema, tv.Occur.Should
    live = searcher.num_docs
    clauses = []
    for term, weight in query_weights(query).items():
        body = tv.Query.term_query(schema, "body", term, index_option="freq")
        clauses.append((should, tv.Query.boost_query(body, weight)))
        named = searcher.doc_freq("meta", term)
        if named:
            meta = tv.Query.term_query(schema, "meta", term, index_option="basic")
            clauses.append((should, tv.Query.const_score_query(meta, weight * META_BOOST * _idf(named, live))))
    return tv.Query.boolean_query(clauses)


def timed_commit(writer: Any, clock: Clock, figures: Figures) -> None:
    """Commit a build: the time since the clock's last lap is the adding, then the commit's own; gc is back on."""
    figures["add_s"], figures["add_cpu_s"] = clock.lap()
    writer.commit()
    figures["commit_s"], figures["commit_cpu_s"] = clock.lap()
    gc.enable()


def tantivy_terms(job: Job) -> Figures:
    """Variant (a): build from our terms, commit, query, update files one at a time."""
    import tantivy as tv

    root, snippets = Path(job.root), load_snippets(job)
    figures: Figures = {"rss_before_mb": rss_mb()}
    folder = Path(job.work) / "tantivy"
    folder.mkdir()
    index = tv.Index(terms_schema(tv), path=str(folder))
    index.config_reader(reload_policy="Manual")
    writer = index.writer(HEAP_BYTES, WRITER_THREADS)
    gc.disable()  # as ours is built
    clock = Clock()
    terms = [(text_terms(s.text), meta_terms(s.path, s.symbol)) for s in snippets]
    figures["terms_s"], figures["terms_cpu_s"] = clock.lap()
    for doc_id, (snippet, (body, meta)) in enumerate(zip(snippets, terms, strict=True)):
        writer.add_document(terms_document(tv, snippet, doc_id, body, meta))
    timed_commit(writer, clock, figures)
    figures["index_s"] = figures["add_s"] + figures["commit_s"]
    figures["index_cpu_s"] = figures["add_cpu_s"] + figures["commit_cpu_s"]
    figures["build_s"] = figures["terms_s"] + figures["index_s"]
    figures["build_cpu_s"] = figures["terms_cpu_s"] + figures["index_cpu_s"]
    del terms
    figures["size_mb"] = folder_mb(folder)
    figures["rss_after_build_mb"] = rss_mb()

    gc.freeze()  # as the server does once a folder is indexed (and `ours_index` after its warm start)
    index.reload()
    searcher = index.searcher()
    figures["segments"] = searcher.num_segments

    def search(query: str) -> list[str]:  # like ours, a snippet per hit (ours returns `Candidate`s)
        hits = searcher.search(weighted_query(tv, index, searcher, query), CANDIDATES, count=False).hits
        return [key(snippets[i]) for i in searcher.fast_field_values("id", [address for _, address in hits])]

    figures.update(time_queries(job, search))

    next_id = len(snippets)

    def update(path: str, i: int) -> tuple[float, float]:
        """One save of `path`: (everything, tantivy's part: delete + add + commit + reload) in seconds."""
        nonlocal next_id, searcher
        clock = Clock()
        text = read_file(root / path).text
        assert text is not None
        documents = []
        for snippet in chunk_file(path, text + f"\n# saved {i}\n").snippets:
            body, meta = text_terms(snippet.text), meta_terms(snippet.path, snippet.symbol)
            documents.append(terms_document(tv, snippet, next_id, body, meta))
            next_id += 1
        prepared = clock.lap()[0]
        writer.delete_documents_by_term("path", path)
        for document in documents:
            writer.add_document(document)
        writer.commit()
        index.reload()
        searcher = index.searcher()
        engine = clock.lap()[0]
        return prepared + engine, engine

    medians = [update(path, i) for path in job.median_files for i in range(MEDIAN_REPEATS)]
    figures["update_median_file_ms"] = ms(statistics.median(t for t, _ in medians))
    figures["update_median_file_tantivy_ms"] = ms(statistics.median(e for _, e in medians))
    largest = [update(job.largest_file, i) for i in range(LARGEST_REPEATS)]
    figures["update_largest_file_ms"] = ms(statistics.median(t for t, _ in largest))
    figures["update_largest_file_tantivy_ms"] = ms(statistics.median(e for _, e in largest))
    figures["segments_after_updates"] = searcher.num_segments
    writer.wait_merging_threads()
    figures["size_after_updates_mb"] = folder_mb(folder)
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def tantivy_raw(job: Job) -> Figures:
    """Variant (b): raw snippet text, tokenized in Rust into whole identifiers and stemmed words (build only)."""
    return raw_build(job, "tantivy-raw", ours_like=True)


def tantivy_default(job: Job) -> Figures:
    """Variant (c): raw snippet text through tantivy's built-in `default` analyzer, the floor of native tokenizing."""
    return raw_build(job, "tantivy-default", ours_like=False)


def raw_build(job: Job, name: str, *, ours_like: bool) -> Figures:
    """Build from raw text with analyzers that run in Rust, commit included.

    `ours_like` approximates our terms with what tantivy-py can register: a regex tokenizer for words (lowercased,
    Snowball-stemmed) and another for whole identifiers, as two fields since one field has one analyzer. Without
    it, one field goes through tantivy's own `default` analyzer (split on non-alphanumerics, lowercase): no
    identifier parts, no stemming, but the cheapest tokenizing there is.
    """
    import tantivy as tv

    snippets = load_snippets(job)
    figures: Figures = {"rss_before_mb": rss_mb()}
    words, meta = ("code_words", "code_words") if ours_like else ("default", "default")
    fields = ("words", "identifiers") if ours_like else ("words",)
    builder = tv.SchemaBuilder()
    builder.add_text_field("words", tokenizer_name=words, index_option="freq")
    if ours_like:
        builder.add_text_field("identifiers", tokenizer_name="code_identifiers", index_option="freq")
    builder.add_text_field("meta", tokenizer_name=meta, index_option="basic")
    builder.add_text_field("path", tokenizer_name="raw", index_option="basic")
    builder.add_unsigned_field("id", fast=True)
    folder = Path(job.work) / name
    folder.mkdir()
    index = tv.Index(builder.build(), path=str(folder))
    if ours_like:
        lowercase = tv.Filter.lowercase()
        stemmed = tv.TextAnalyzerBuilder(tv.Tokenizer.regex(WORDS)).filter(lowercase)
        index.register_tokenizer("code_words", stemmed.filter(tv.Filter.stemmer("english")).build())
        whole = tv.TextAnalyzerBuilder(tv.Tokenizer.regex(IDENTIFIERS)).filter(lowercase)
        index.register_tokenizer("code_identifiers", whole.build())
    writer = index.writer(HEAP_BYTES, WRITER_THREADS)
    gc.disable()
    clock = Clock()
    for doc_id, snippet in enumerate(snippets):
        document = tv.Document()
        for field in fields:
            document.add_text(field, snippet.text)
        document.add_text("meta", f"{snippet.path} {snippet.symbol or ''}")
        document.add_text("path", snippet.path)
        document.add_unsigned("id", doc_id)
        writer.add_document(document)
    timed_commit(writer, clock, figures)
    figures["build_s"] = figures["add_s"] + figures["commit_s"]
    figures["build_cpu_s"] = figures["add_cpu_s"] + figures["commit_cpu_s"]
    figures["size_mb"] = folder_mb(folder)
    figures["rss_after_build_mb"] = rss_mb()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def tantivy_open(job: Job) -> Figures:
    """A restart: a fresh process opens variant (a)'s index (as the updates left it) and answers a query."""
    import tantivy as tv

    first = next(iter(job.queries.values()))[0]
    clock = Clock()
    index = tv.Index.open(str(Path(job.work) / "tantivy"))
    searcher = index.searcher()
    figures: Figures = {"open_ms": ms(clock.lap()[0])}
    hits = searcher.search(weighted_query(tv, index, searcher, first), CANDIDATES, count=False).hits
    searcher.fast_field_values("id", [address for _, address in hits])
    figures["first_query_ms"] = ms(clock.lap()[0])
    figures["open_and_query_ms"] = round(figures["open_ms"] + figures["first_query_ms"], 1)
    figures["rss_after_open_mb"] = rss_mb()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


# -- shared -------------------------------------------------------------------------------------------


def time_queries(job: Job, search: Callable[[str], list[str]]) -> Figures:
    """p50/p95 of `search` per query set, and (when asked) every query's top keys, under `top`."""
    figures: Figures = {}
    top: dict[str, list[list[str]]] = {}
    for name, texts in job.queries.items():
        timings, found = [], []
        for query in texts:
            started = time.perf_counter()
            result = search(query)
            timings.append(time.perf_counter() - started)
            found.append(result)
        figures[f"query_{name}_p50_ms"], figures[f"query_{name}_p95_ms"] = percentiles(timings)
        if job.keep_top:
            top[name] = found
    if top:
        figures["top"] = top
    return figures


WORKER_FUNCTIONS: dict[str, Callable[[Job], Figures]] = {
    "ours-lexical": ours_lexical,
    "ours-index": ours_index,
    "ours-open": ours_open,
    "tantivy-terms": tantivy_terms,
    "tantivy-raw": tantivy_raw,
    "tantivy-default": tantivy_default,
    "tantivy-open": tantivy_open,
}


def run_worker(name: str, job_path: Path, out: Path) -> Figures:
    command = [sys.executable, "-m", "bench.index_choice", "--worker", name, "--job", str(job_path), "--out", str(out)]
    subprocess.run(command, check=True, cwd=BENCH_DIR.parent)
    figures: Figures = json.loads(out.read_text())
    return figures


def prepare(root: Path, corpus: str, folder: Path) -> tuple[Job, Figures]:
    """Chunk the corpus once (our cold build); the snippets and the files to update are every worker's input."""
    index = RootIndex(root)
    stats = index.refresh()
    snippets = [s for s in index.snippets if s is not None]
    with open(folder / "snippets.pickle", "wb") as handle:
        pickle.dump(snippets, handle, protocol=pickle.HIGHEST_PROTOCOL)
    by_size = sorted((e.lines, p) for p, e in index.entries() if e.docs and p.endswith(".py"))
    middle = len(by_size) // 2
    median_files = [p for _, p in by_size[middle - MEDIAN_FILES // 2 : middle + (MEDIAN_FILES + 1) // 2]]
    largest = largest_file(index)
    sets = {"behavior": queries()}
    docstrings = CORPORA_DIR / f"{corpus}-nodoc.jsonl"
    if docstrings.is_file():
        sets["docstring"] = [json.loads(line)["query"] for line in docstrings.read_text().splitlines() if line]
    about: Figures = {
        "files": stats.files,
        "snippets": len(snippets),
        "median_files_lines": [index.files[p].lines for p in median_files],
        "largest_file": f"{largest} ({index.files[largest].lines} lines, {len(index.files[largest].docs)} snippets)",
        "queries": {name: len(texts) for name, texts in sets.items()},
    }
    job = Job(str(root), str(folder / "snippets.pickle"), median_files, largest, sets, "", keep_top=False)
    return job, about


def agreement(ours: dict[str, list[list[str]]], theirs: dict[str, list[list[str]]]) -> Figures:
    """Mean share of ours' top-k that tantivy's top-k also holds, per query set."""
    figures: Figures = {}
    for name, lists in ours.items():
        for k in (10, CANDIDATES):
            shares = [len(set(a[:k]) & set(b[:k])) / len(a[:k]) for a, b in zip(lists, theirs[name], strict=True) if a]
            figures[f"{name}_top{k}_overlap"] = round(statistics.mean(shares), 3)
    return figures


def summarize(runs: dict[str, list[Figures]]) -> dict[str, dict[str, dict[str, float]]]:
    """Median, min and max over rounds of every numeric figure."""
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for worker, rounds in runs.items():
        summary[worker] = {}
        for name, value in rounds[0].items():
            if isinstance(value, int | float):
                values = [r[name] for r in rounds]
                summary[worker][name] = {
                    "median": round(statistics.median(values), 3),
                    "min": round(min(values), 3),
                    "max": round(max(values), 3),
                }
    return summary


def number(value: float) -> str:
    """Three significant digits, never in exponent form."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def table(summary: dict[str, dict[str, dict[str, float]]], overlap: Figures, sets: Iterable[str]) -> str:
    """The markdown table: medians over rounds, [min, max] when they differ."""

    def cell(worker: str, *names: str) -> str:
        parts = []
        for name in names:
            found = summary.get(worker, {}).get(name)
            if found is None:
                return "-"
            low, mid, high = found["min"], found["median"], found["max"]
            spread = f" [{number(low)}, {number(high)}]" if high - low > 0.005 * max(abs(mid), 1e-9) else ""
            parts.append(f"{number(mid)}{spread}")
        return " / ".join(parts)

    def raw(*names: str) -> tuple[str, str]:
        return cell("tantivy-raw", *names), cell("tantivy-default", *names)

    def lexical_only(label: str, ours: str, theirs: str) -> tuple[str, ...]:
        """A row with no figures for the raw-text analyzers (b) and (c)."""
        return (label, ours, theirs, "", "")

    rows: list[tuple[str, ...]] = [
        (
            "cold lexical build, wall s: total / terms / index (1)",
            cell("ours-lexical", "build_s", "terms_s", "index_s"),
            cell("tantivy-terms", "build_s", "terms_s", "index_s"),
            *raw("build_s"),
        ),
        (
            "cold lexical build, CPU s: total / terms / index",
            cell("ours-lexical", "build_cpu_s", "terms_cpu_s", "index_cpu_s"),
            cell("tantivy-terms", "build_cpu_s", "terms_cpu_s", "index_cpu_s"),
            *raw("build_cpu_s"),
        ),
        ("of which commit, wall s", "-", cell("tantivy-terms", "commit_s"), *raw("commit_s")),
        ("persisting the lexical index (pickle + fsync), s", cell("ours-lexical", "persist_s"), "(in commit)", "", ""),
        lexical_only(
            "full cold index (RootIndex.refresh as bench.engine), wall / CPU s",
            cell("ours-index", "cold_index_s", "cold_index_cpu_s"),
            "",
        ),
    ]
    for name in sets:
        rows.append(
            lexical_only(
                f"top-{CANDIDATES} query, {name} set, p50 / p95 ms",
                cell("ours-index", f"query_{name}_p50_ms", f"query_{name}_p95_ms"),
                cell("tantivy-terms", f"query_{name}_p50_ms", f"query_{name}_p95_ms"),
            )
        )
        rows.append(
            lexical_only(
                f"top-10 / top-{CANDIDATES} overlap with ours, {name} set",
                "1 / 1",
                " / ".join(str(overlap.get(f"{name}_top{k}_overlap", "-")) for k in (10, CANDIDATES)),
            )
        )
    rows += [
        lexical_only(
            f"one-file update, {MEDIAN_FILES} median files, ms (3)",
            cell("ours-index", "keystroke_median_file_ms", "save_median_file_ms"),
            cell("tantivy-terms", "update_median_file_ms", "update_median_file_tantivy_ms"),
        ),
        lexical_only(
            "one-file update, largest file, ms (3)",
            cell("ours-index", "keystroke_largest_file_ms", "save_largest_file_ms"),
            cell("tantivy-terms", "update_largest_file_ms", "update_largest_file_tantivy_ms"),
        ),
        (
            "persisted MB (4)",
            cell("ours-lexical", "size_mb") + " / " + cell("ours-index", "persisted_mb"),
            cell("tantivy-terms", "size_mb", "size_after_updates_mb"),
            *raw("size_mb"),
        ),
        lexical_only(
            "restart, fresh process: open + first query / open / first query, ms (2)",
            cell("ours-open", "open_and_query_ms", "open_ms", "first_query_ms"),
            cell("tantivy-open", "open_and_query_ms", "open_ms", "first_query_ms"),
        ),
        ("restart: unpickling the lexical index alone, ms", cell("ours-open", "open_lexical_ms"), "", "", ""),
        ("restart: re-stat the folder (refresh), ms", cell("ours-open", "refresh_ms"), "", "", ""),
        ("in-process warm start as bench.engine (load + refresh), s", cell("ours-index", "warm_start_s"), "", "", ""),
        lexical_only(
            "RSS after restart (open + 1 query), MB",
            cell("ours-open", "rss_after_open_mb"),
            cell("tantivy-open", "rss_after_open_mb"),
        ),
        (
            "lexical build: RSS before / after, MB",
            cell("ours-lexical", "rss_before_mb", "rss_after_build_mb"),
            cell("tantivy-terms", "rss_before_mb", "rss_after_build_mb"),
            *raw("rss_before_mb", "rss_after_build_mb"),
        ),
        (
            "peak RSS, MB: lexical build only / whole run (5)",
            cell("ours-lexical", "peak_rss_mb") + " / " + cell("ours-index", "peak_rss_mb"),
            "- / " + cell("tantivy-terms", "peak_rss_mb"),
            *(f"{c} / -" for c in raw("peak_rss_mb")),
        ),
    ]
    header = (
        "| figure | ours | tantivy (a): our terms | tantivy (b): raw text, regex analyzers like ours "
        "| tantivy (c): raw text, built-in `default` analyzer |\n|---|---|---|---|---|"
    )
    return "\n".join([header, *(f"| {' | '.join(row)} |" for row in rows), "", NOTES])


def measure(corpus: str, rounds: int) -> tuple[Figures, str]:
    source = resolve_root(corpus)
    figures: Figures = {"corpus": str(source), "rounds": rounds, "load_before": os.getloadavg()}
    print(f"load average before: {figures['load_before']}", flush=True)
    runs: dict[str, list[Figures]] = {name: [] for name in WORKERS}
    with tempfile.TemporaryDirectory(prefix="index-choice-") as tmp:
        # The update measurements edit files: on a copy, so no other benchmark reading the corpus sees them.
        root = Path(shutil.copytree(source, Path(tmp) / "corpus", symlinks=True))
        base, about = prepare(root, corpus, Path(tmp))
        figures.update(about)
        print(json.dumps(about), flush=True)
        tops: dict[str, dict[str, list[list[str]]]] = {}
        loads = []
        for number in range(rounds):
            work = Path(tmp) / f"round-{number}"
            work.mkdir()
            job_path = work / "job.json"
            job_path.write_text(json.dumps(asdict(base) | {"work": str(work), "keep_top": number == 0}))
            loads.append(os.getloadavg())
            for name in WORKERS:
                started = time.perf_counter()
                result = run_worker(name, job_path, work / f"{name}.json")
                if "top" in result:
                    tops[name] = result.pop("top")
                runs[name].append(result)
                print(f"round {number + 1}/{rounds} {name:13} {time.perf_counter() - started:5.1f}s", flush=True)
        figures["load_per_round"] = loads
    figures["overlap"] = agreement(tops["ours-index"], tops["tantivy-terms"])
    figures["summary"] = summarize(runs)
    figures["runs"] = runs
    figures["load_after"] = os.getloadavg()
    text = table(figures["summary"], figures["overlap"], about["queries"])
    return figures, text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="large")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds of every measurement")
    parser.add_argument("--worker", choices=sorted(WORKER_FUNCTIONS), help=argparse.SUPPRESS)
    parser.add_argument("--job", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        job = Job(**json.loads(Path(args.job).read_text()))
        Path(args.out).write_text(json.dumps(WORKER_FUNCTIONS[args.worker](job)))
        return
    if importlib.util.find_spec("tantivy") is None:
        raise SystemExit("tantivy is not installed: `.venv/bin/pip install tantivy==0.27.0` (the version measured)")
    figures, text = measure(args.corpus, args.rounds)
    OUT_DIR.mkdir(exist_ok=True)
    out = OUT_DIR / f"index-choice-{args.corpus}.json"
    out.write_text(json.dumps(figures, indent=2))
    print(f"\n{text}\n")
    loads = ", ".join(f"{a:.2f}/{b:.2f}/{c:.2f}" for a, b, c in (figures["load_before"], *figures["load_per_round"]))
    after = "/".join(f"{a:.2f}" for a in figures["load_after"])
    print(f"load average (1/5/15 min) before, at each round: {loads}; after: {after}; figures in {out}")


if __name__ == "__main__":
    main()
