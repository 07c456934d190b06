"""`python -m bench all|quality|speed [--quick|--full] [--out DIR]`: run everything and write the report.

What each level runs (both write `DIR/quality.json` and `DIR/speed.json`, then `DIR/report.md` and charts):

- quick (the CI smoke run, ~3 min on 2 cores): quality on click's and zod's questions of the behavior set's
  development part, 6 positives + 2 negatives per corpus, candidates 32, vectors embedded at search time only;
  speed on click: 3 one-shot runs, 2 server starts, 3 searches, the peer's first 5 queries.
- full (~50 min on 2 cores): quality on the behavior set's held-out part (what README reports: nothing is
  fitted or tuned on it) and its development part, then click-nodoc (202) and large-nodoc (40 sampled),
  candidates 128, the behavior projects and click-nodoc embedded first, large-nodoc at search time only; speed
  on click, zod and large: 5 runs (3 on large), 5 searches, the peer over every behavior query of the corpus
  (the first 5 large-nodoc queries on large).

Corpora come from `prepare` (run here; a no-op when prepared) and the peer venv from `peer-setup` (likewise).
"""

from __future__ import annotations

import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import corpora, ours, server, speed
from bench.quality import metrics, sets

BENCH_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Level:
    name: str
    candidates: int
    behavior_parts: tuple[tuple[str, tuple[str, ...] | None], ...]
    """(part of the behavior set, its corpora to use; None: all of them), in report order (`quality.sets`)."""
    per_corpus: tuple[int, int] | None
    """(positives, negatives) per corpus of the behavior set; None: all."""
    docstring_sets: tuple[tuple[str, int], ...]
    """(corpus, queries sampled; 0 = all) of the docstring sets."""
    embed_all: tuple[str, ...]
    """Corpora embedded before their queries run."""
    speed_corpora: tuple[str, ...]
    oneshot_runs: dict[str, int]
    server_runs: dict[str, int]
    searches: int
    peer_queries: dict[str, int]
    """0: every behavior query of that corpus (for `large`, the large-nodoc queries)."""


QUICK = Level(
    "quick",
    candidates=32,
    behavior_parts=(("development", ("click", "zod")),),
    per_corpus=(6, 2),
    docstring_sets=(),
    embed_all=(),
    speed_corpora=("click",),
    oneshot_runs={"click": 3},
    server_runs={"click": 2},
    searches=3,
    peer_queries={"click": 5},
)
FULL = Level(
    "full",
    candidates=128,
    behavior_parts=(("held-out", None), ("development", None)),
    per_corpus=None,
    docstring_sets=(("click", 0), ("large", 40)),
    embed_all=(*sets.PARTS["all"], "click-nodoc"),
    speed_corpora=("click", "zod", "large"),
    oneshot_runs={"click": 5, "zod": 5, "large": 3},
    server_runs={"click": 5, "zod": 5, "large": 3},
    searches=5,
    peer_queries={"click": 0, "zod": 0, "large": 5},
)

BEHAVIOR = replace(FULL, name="behavior", docstring_sets=())
"""`quality --behavior`: the behavior set's two parts at full settings, without the docstring sets (~5 min): what
README's quality table comes from."""


def resolve_root(name: str) -> Path:
    from bench.__main__ import resolve_root as resolve

    return resolve(name)


def loadavg() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def machine() -> dict[str, Any]:
    return {
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
    }


def behavior_cases(level: Level, part: str, only: tuple[str, ...] | None) -> list[metrics.QueryCase]:
    cases = [c for c in sets.behavior_cases(part) if only is None or c.corpus in only]  # type: ignore[arg-type]
    if level.per_corpus is None:
        return cases
    positives, negatives = level.per_corpus
    picked: list[metrics.QueryCase] = []
    for corpus in dict.fromkeys(c.corpus for c in cases):
        own = [c for c in cases if c.corpus == corpus]
        picked += [c for c in own if not c.negative][:positives] + [c for c in own if c.negative][:negatives]
    return picked


def docstring_cases(corpus: str, sample: int, log: Callable[[str], None]) -> list[metrics.QueryCase]:
    path = corpora.CORPORA_DIR / f"{corpus}-nodoc.jsonl"
    if not path.is_file():
        from bench.quality import docstrings

        log(f"building the {corpus} docstring set")
        docstrings.build(resolve_root(corpus), corpora.CORPORA_DIR / f"{corpus}-nodoc", path, f"{corpus}-nodoc")
    cases = metrics.load_cases(path)
    if sample and sample < len(cases):
        cases = random.Random(0).sample(cases, sample)
    return cases


def run_baselines(cases: list[metrics.QueryCase], candidates: int) -> dict[str, list[metrics.QueryResult]]:
    from bench.quality import baselines

    out: dict[str, list[metrics.QueryResult]] = {"rg": [], "bm25 (rank-bm25)": [], "bm25-code (rank-bm25)": []}
    bm25: dict[tuple[str, bool], baselines.Bm25Baseline] = {}
    for case in cases:
        root = resolve_root(case.corpus)
        out["rg"].append(baselines.rg_rank(root, case.query, shortlist=candidates))
        for code_only, row in ((False, "bm25 (rank-bm25)"), (True, "bm25-code (rank-bm25)")):
            if (case.corpus, code_only) not in bm25:
                bm25[case.corpus, code_only] = baselines.Bm25Baseline(root, code_only=code_only)
            out[row].append(bm25[case.corpus, code_only].search(case.query, shortlist=candidates))
    return out


def score(cases: list[metrics.QueryCase], results: list[metrics.QueryResult] | dict, candidates: int) -> dict:
    if isinstance(results, dict):
        keyed = results
        cases = [c for c in cases if c.key in keyed]
    else:
        keyed = {c.key: r for c, r in zip(cases, results, strict=True)}
    ks = tuple(k for k in metrics.DEFAULT_SHORTLIST_KS if k <= candidates)
    report = metrics.evaluate(cases, keyed, shortlist_ks=ks)
    return {**report.summary(), "queries": len(cases)}


BY_LANGUAGE = ("ours-hybrid+local", "ours-hybrid+local@0", "shortlist-hybrid", "bm25-code (rank-bm25)")
"""The rows scored language by language too: the issue that asked for the judge to beat BM25 found it below BM25
on four languages, which the whole set's averages cannot show."""


def by_language(
    cases: list[metrics.QueryCase], results: dict[str, list[metrics.QueryResult]], candidates: int
) -> dict[str, dict[str, Any]]:
    """Language -> its projects and `BY_LANGUAGE`'s rows scored on its questions alone."""
    languages = sets.project_languages(cases)
    found: dict[str, dict[str, Any]] = {}
    for language in sorted(set(languages.values())):
        chosen = [i for i, case in enumerate(cases) if languages.get(case.corpus) == language]
        subset = [cases[i] for i in chosen]
        found[language] = {
            "projects": sorted({case.corpus for case in subset}),
            "rows": {
                config: score(subset, [results[config][i] for i in chosen], candidates)
                for config in BY_LANGUAGE
                if config in results
            },
        }
    return found


def run_quality(level: Level, out: Path, cache: Path, log: Callable[[str], None]) -> dict[str, Any]:
    runs: list[tuple[str, list[metrics.QueryCase]]] = [
        (f"behavior {part}", behavior_cases(level, part, only)) for part, only in level.behavior_parts
    ]
    for corpus, sample in level.docstring_sets:
        runs.append((f"{corpus}-nodoc", docstring_cases(corpus, sample, log)))
    doc: dict[str, Any] = {"level": level.name, "candidates": level.candidates, "sets": {}}
    for name, cases in runs:
        started = time.perf_counter()
        log(f"quality: {name}, {len(cases)} queries, candidates {level.candidates}")
        embed = all(c.corpus in level.embed_all for c in cases)
        run = ours.run_set(name, cases, resolve_root, cache, candidates=level.candidates, embed_all=embed, log=log)
        rows: dict[str, Any] = {}
        rows_results: dict[str, list[metrics.QueryResult]] = {}
        for config, results in run.results.items():
            metrics.write_results(out / f"{name}.{config}.jsonl", cases, results)
            rows[config] = {**score(cases, results, level.candidates), "seconds": round(run.seconds[config], 1)}
            rows_results[config] = results
        for config, results in run_baselines(cases, level.candidates).items():
            safe = config.split()[0]
            metrics.write_results(out / f"{name}.{safe}.jsonl", cases, results)
            rows[config] = score(cases, results, level.candidates)
            rows_results[config] = results
        doc["sets"][name] = {
            "queries": len(cases),
            "positives": sum(not c.negative for c in cases),
            "negatives": sum(c.negative for c in cases),
            "dense_coverage": run.dense_coverage,
            "snippets": run.snippets,
            "rows": rows,
            "by_language": by_language(cases, rows_results, level.candidates) if name.startswith("behavior") else {},
            "seconds": round(time.perf_counter() - started, 1),
            "load_after": loadavg(),
        }
        for config, row in rows.items():
            log(f"  {config:22} " + " ".join(f"{k}={v}" for k, v in row.items() if k not in ("positives", "negatives")))
    return doc


def add_peer_quality(quality: dict[str, Any], speed_doc: dict[str, Any], out: Path) -> None:
    """The peer's shortlist (the order it judged in) and its lexical-stand-in ranking, over the queries it ran."""
    behavior = quality["sets"].get("behavior development")
    if behavior is None:
        return
    cases = sets.behavior_cases("development")
    merged: dict[tuple[str, str], metrics.QueryResult] = {}
    for name in speed_doc["corpora"]:
        path = out / f"peer.{name}.json"
        if path.is_file() and name in ("click", "zod"):
            merged.update(metrics.load_results(path))
    if merged:
        behavior["rows"]["peer (stand-in judge)"] = score(cases, merged, quality["candidates"])


def run_speed(level: Level, out: Path, log: Callable[[str], None], only: tuple[str, ...] = ()) -> dict[str, Any]:
    doc: dict[str, Any] = {"level": level.name, "corpora": {}}
    earlier = out / "speed.json"
    if only and earlier.is_file():  # re-running some corpora keeps the others' figures
        doc = json.loads(earlier.read_text())
    for name in only or level.speed_corpora:
        root = resolve_root(name)
        queries = server.corpus_queries(name)
        queries_file = sets.corpus_file(name)
        if name == "large":  # its docstring set, built on first use like `quality`'s
            queries = [case.query for case in docstring_cases(name, 0, log)]
            queries_file = corpora.CORPORA_DIR / "large-nodoc.jsonl"
        edit_file = server.edit_target(root).relative_to(root).as_posix()
        searches = level.searches
        figures: dict[str, Any] = {"edit_file": edit_file, "load_before": loadavg()}
        log(f"speed: {name}: ours one-shot")
        figures["oneshot"] = speed.oneshot(
            root, queries[: searches + 1], runs=level.oneshot_runs[name], edit_file=edit_file, log=log
        )
        log(f"speed: {name}: ours server")
        figures["server"] = speed.run_server(root, queries, runs=level.server_runs[name], searches=searches)
        log(f"speed: {name}: ours server, the embedded judge")
        figures["server_local"] = speed.run_server(root, queries, runs=1, searches=searches, judge="local")
        log(f"speed: {name}: the peer")
        peer_corpus = "large-nodoc" if name == "large" else name
        figures["peer"] = speed.peer(
            root,
            peer_corpus,
            queries_file,
            out / f"peer.{name}.json",
            max_queries=level.peer_queries[name],
            edit_file=edit_file,
        )
        figures["load_after"] = loadavg()
        figures["scenarios"] = [vars(s) | {"ratio": s.ratio} for s in speed.scenarios(figures)]
        figures["memory"] = [vars(s) | {"ratio": s.ratio} for s in speed.memory(figures)]
        doc["corpora"][name] = figures
        (out / "speed.json").write_text(json.dumps(doc, indent=1))  # a later corpus failing keeps this one
        for s in speed.scenarios(figures) + speed.memory(figures):
            log(f"  {s.name:42} ours {s.ours_s:8.3f}  peer {s.peer_s:8.3f}  ratio {s.ratio:.2f}")
    return doc


def commands(level: Level, out: Path, default_out: Path) -> list[str]:
    flag = f"--{level.name}"
    where = "" if out.resolve() == default_out.resolve() else f" --out {out}"
    return [
        ".venv/bin/python -m bench prepare" + {"quick": " --quick", "behavior": " --quality"}.get(level.name, ""),
        f".venv/bin/python -m bench all {flag}{where}",
    ]


def main(
    what: str,
    level: Level,
    out: Path,
    default_out: Path,
    log: Callable[[str], None] = print,
    speed_corpora: tuple[str, ...] = (),
) -> int:
    from bench import report
    from bench.peer import venv

    out.mkdir(parents=True, exist_ok=True)
    cache = default_out / "cache"  # indexes and vectors survive between runs, whatever --out is
    started = time.time()
    meta = {"machine": machine(), "load_start": loadavg(), "started": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    meta["commands"] = commands(level, out, default_out)
    meta["argv"] = sys.argv[1:]
    earlier = out / "meta.json"
    if what != "all" and earlier.is_file():
        # `quality` then `speed` into the same folder: one report, whose header keeps both runs' figures.
        previous = json.loads(earlier.read_text())
        if previous.get("level") == level.name:
            meta["load_start"], meta["started"] = previous["load_start"], previous["started"]
            meta["phases"] = previous.get("phases", [])
            meta["minutes_before"] = previous.get("minutes", 0)
            meta["loads_before"] = previous.get("loads", [])
    meta.setdefault("phases", [])
    meta["phases"].append(
        f"python -m bench {' '.join(sys.argv[1:]) or what} (started {time.strftime('%Y-%m-%d %H:%M %Z')})"
    )
    names = [c.name for c in corpora.CORPORA.values() if c.quick or level is FULL]
    names += [name for part, only in level.behavior_parts for name in only or sets.PARTS[part] if name not in names]
    for name in names:
        corpora.prepare(corpora.CORPORA[name])
    if what in ("all", "speed"):
        venv.setup(log=log)
    loads: list[list[float]] = [loadavg()]
    if what in ("all", "quality"):
        quality = run_quality(level, out, cache, log)
        loads.append(loadavg())
        if what == "quality" and (out / "speed.json").is_file():  # the peer's row comes from its speed runs
            add_peer_quality(quality, json.loads((out / "speed.json").read_text()), out)
        (out / "quality.json").write_text(json.dumps(quality, indent=1))
    if what in ("all", "speed"):
        speed_doc = run_speed(level, out, log, speed_corpora)
        loads.append(loadavg())
        (out / "speed.json").write_text(json.dumps(speed_doc, indent=1))
        if (out / "quality.json").is_file():
            quality = json.loads((out / "quality.json").read_text())
            add_peer_quality(quality, speed_doc, out)
            (out / "quality.json").write_text(json.dumps(quality, indent=1))
    meta["loads"] = meta.pop("loads_before", []) + loads
    meta["load_end"] = loadavg()
    meta["minutes"] = round((time.time() - started) / 60 + meta.get("minutes_before", 0), 1)
    meta.pop("minutes_before", None)
    meta["level"] = level.name
    (out / "meta.json").write_text(json.dumps(meta, indent=1))
    path = report.write(out)
    log(f"report: {path}")
    return 0
