"""`python -m bench COMMAND`: prepare corpora, build the docstring set, run baselines and the peer, score results."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench import corpora
from bench.quality import metrics

BENCH_DIR = Path(__file__).resolve().parent
BEHAVIOR_SET = BENCH_DIR / "quality" / "behavior"
"""The behavior set's folder, one file per project (`bench.quality.sets`)."""
OUT_DIR = BENCH_DIR / "out"
"""Git-ignored: results files and reports."""
RESULTS_DIR = BENCH_DIR / "results"
"""Committed: the latest published report and charts."""


def resolve_root(name: str) -> Path:
    """A corpus tree by name: a pinned corpus (`click`, `zod`, `large`) or a derived one (`click-nodoc`)."""
    if name in corpora.CORPORA:
        return corpora.corpus_root(name)
    root = corpora.CORPORA_DIR / name
    if not root.is_dir():
        raise FileNotFoundError(f"no corpus {name!r} under {corpora.CORPORA_DIR}")
    return root


def save_figures(name: str, figures: dict[str, object]) -> None:
    """A standalone measurement's figures: to `bench/out/NAME.json` for the report, and to the terminal."""
    OUT_DIR.mkdir(exist_ok=True)
    (OUT_DIR / f"{name}.json").write_text(json.dumps(figures, indent=2))
    width = max(map(len, figures), default=0) + 2
    for key, value in figures.items():
        print(f"{key:{width}} {value}")


def cmd_prepare(args: argparse.Namespace) -> int:
    if args.only:
        names = args.only
    elif args.quality:
        from bench.quality.sets import PARTS

        names = list(PARTS["all"])
    else:
        names = [c.name for c in corpora.CORPORA.values() if c.quick or not args.quick]
    for name in names:
        corpus = corpora.CORPORA[name]
        started = time.perf_counter()
        root = corpora.prepare(corpus)
        c = corpora.count(root)
        print(
            f"{name:6} {c.files:6,} files {c.lines:10,} lines  (code: {c.code_files:,} files, {c.code_lines:,} lines)"
            f"  {time.perf_counter() - started:5.1f}s  {root}"
        )
    return 0


def cmd_docstrings(args: argparse.Namespace) -> int:
    from bench.quality import docstrings

    source = resolve_root(args.corpus)
    name = f"{args.corpus}-nodoc"
    built = docstrings.build(
        source,
        corpora.CORPORA_DIR / name,
        corpora.CORPORA_DIR / f"{name}.jsonl",
        name,
        sample=args.sample,
        seed=args.seed,
    )
    print(
        f"{built.files} Python files stripped into {built.stripped_root}\n"
        f"{built.sampled} of {built.candidates} candidate functions sampled (seed {args.seed}) -> {built.queries_path}"
    )
    return 0


def _report(label: str, report: metrics.QualityReport) -> None:
    print(f"{label:10} " + "  ".join(f"{k}={v}" for k, v in report.summary().items()))


def cmd_baselines(args: argparse.Namespace) -> int:
    from bench.quality import baselines

    cases = [c for c in metrics.load_cases(args.cases) if not args.corpus or c.corpus in args.corpus]
    OUT_DIR.mkdir(exist_ok=True)
    stem = Path(args.cases).stem
    for which in args.which.split(","):
        results: list[metrics.QueryResult] = []
        bm25_by_corpus: dict[str, baselines.Bm25Baseline] = {}
        started = time.perf_counter()
        for case in cases:
            root = resolve_root(case.corpus)
            if which == "rg":
                results.append(baselines.rg_rank(root, case.query, limit=args.k))
            elif which == "bm25":
                if case.corpus not in bm25_by_corpus:
                    bm25_by_corpus[case.corpus] = baselines.Bm25Baseline(root)
                results.append(bm25_by_corpus[case.corpus].search(case.query, limit=args.k))
            else:
                raise SystemExit(f"unknown baseline {which!r}: use rg or bm25")
        out = OUT_DIR / f"{stem}.{which}.jsonl"
        metrics.write_results(out, cases, results)
        report = metrics.evaluate(cases, {c.key: r for c, r in zip(cases, results, strict=True)}, k=args.k)
        _report(which, report)
        print(f"{'':10} {len(cases)} queries in {time.perf_counter() - started:.1f}s -> {out}")
    return 0


def cmd_score(args: argparse.Namespace) -> int:
    cases = [c for c in metrics.load_cases(args.cases) if not args.corpus or c.corpus in args.corpus]
    for path in args.results:
        results = metrics.load_results(path)
        report = metrics.evaluate(cases, results, k=args.k)
        _report(Path(path).name, report)
        if args.per_query:
            for row in report.per_query:
                print("   ", json.dumps(row))
    return 0


def cmd_peer_setup(args: argparse.Namespace) -> int:
    from bench.peer import venv

    venv.setup()
    return 0


def cmd_peer(args: argparse.Namespace) -> int:
    from bench.peer import venv

    if not venv.is_ready():
        raise SystemExit("the peer venv is missing: run `python -m bench peer-setup`")
    OUT_DIR.mkdir(exist_ok=True)
    output = Path(args.output or OUT_DIR / f"peer.{args.corpus}.json")
    extra = ["--corpus", args.corpus] if args.filter else []
    extra += args.extra
    return venv.run(resolve_root(args.corpus), Path(args.queries), output, extra)


def cmd_stats(args: argparse.Namespace) -> int:
    for corpus in corpora.CORPORA.values():
        if corpora.is_prepared(corpus):
            c = corpora.count(corpus.root)
            print(f"{corpus.name:6} {c.files:6,} files {c.lines:10,} lines  ({c.code_files:,} code files)")
        else:
            print(f"{corpus.name:6} not prepared")
    return 0


def cmd_suite(args: argparse.Namespace) -> int:
    from bench import suite

    level = suite.FULL if args.full else suite.BEHAVIOR if getattr(args, "behavior", False) else suite.QUICK
    return suite.main(args.command, level, Path(args.out), OUT_DIR, speed_corpora=tuple(args.corpora or ()))


def cmd_report(args: argparse.Namespace) -> int:
    from bench import report

    print(report.write(Path(args.out)))
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    """Copy a run's report and charts to `bench/results/` (committed, so README can embed them)."""
    import shutil

    source = Path(args.out)
    RESULTS_DIR.mkdir(exist_ok=True)
    for path in sorted(source.iterdir()):
        if path.suffix in (".png", ".md") or path.name in ("quality.json", "speed.json", "meta.json"):
            shutil.copy2(path, RESULTS_DIR / path.name)
            print(RESULTS_DIR / path.name)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("prepare", help="fetch, verify (sha256) and unpack the corpora into bench/.corpora/")
    p.add_argument("--quick", action="store_true", help="only the small corpora (click, zod)")
    p.add_argument("--quality", action="store_true", help="the quality set's projects (bench/quality/sets.py)")
    p.add_argument("--only", nargs="+", choices=sorted(corpora.CORPORA), help="just these corpora")
    p.set_defaults(func=cmd_prepare)

    p = sub.add_parser("docstrings", help="strip a corpus of docstrings/comments and emit docstring queries")
    p.add_argument("--corpus", default="click")
    p.add_argument("--sample", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=cmd_docstrings)

    p = sub.add_parser("baselines", help="run the rg and plain-BM25 baselines over a query set and score them")
    p.add_argument("--cases", default=str(BEHAVIOR_SET))
    p.add_argument("--corpus", nargs="*", help="only cases of these corpora")
    p.add_argument("--which", default="rg,bm25")
    p.add_argument("-k", type=int, default=metrics.DEFAULT_K)
    p.set_defaults(func=cmd_baselines)

    p = sub.add_parser("score", help="score results files (JSON lines, or a peer report) against a query set")
    p.add_argument("results", nargs="+")
    p.add_argument("--cases", default=str(BEHAVIOR_SET))
    p.add_argument("--corpus", nargs="*")
    p.add_argument("-k", type=int, default=metrics.DEFAULT_K)
    p.add_argument("--per-query", action="store_true")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("peer-setup", help="create bench/.corpora/.peer-venv with the pinned peer")
    p.set_defaults(func=cmd_peer_setup)

    p = sub.add_parser("peer", help="run the peer (run_peer.py in its venv) over a corpus")
    p.add_argument("--corpus", default="click")
    p.add_argument("--queries", default=str(BEHAVIOR_SET))
    p.add_argument("--output")
    p.add_argument("--no-filter", dest="filter", action="store_false", help="keep queries of other corpora")
    p.add_argument("extra", nargs=argparse.REMAINDER, help="passed to run_peer.py (after --)")
    p.set_defaults(func=cmd_peer)

    for name, text in (
        ("all", "quality, then speed next to the peer, then the report and charts"),
        ("quality", "our engine, the baselines (and the peer's shortlist, after `speed`) over the quality sets"),
        ("speed", "speed and memory of our one-shot path and server next to the peer"),
    ):
        p = sub.add_parser(name, help=text)
        level = p.add_mutually_exclusive_group()
        level.add_argument("--quick", action="store_true", help="small: the CI smoke run (default)")
        level.add_argument("--full", action="store_true", help="every set and corpus (~50 min on 2 cores)")
        if name == "quality":
            level.add_argument("--behavior", action="store_true", help="the behavior set's two parts only (~5 min)")
        p.add_argument("--out", default=str(OUT_DIR), help="where results, report.md and charts go")
        p.add_argument(
            "--corpora", nargs="+", choices=sorted(corpora.CORPORA), help="speed: only these (others kept from --out)"
        )
        p.set_defaults(func=cmd_suite)

    p = sub.add_parser("report", help="rebuild report.md and the charts from the JSON files of a run")
    p.add_argument("--out", default=str(OUT_DIR))
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("publish", help="copy a run's report, charts and JSON to bench/results/ (committed)")
    p.add_argument("--out", default=str(OUT_DIR))
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("stats", help="file and line counts of the prepared corpora")
    p.set_defaults(func=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "extra", None) and args.extra[0] == "--":
        args.extra = args.extra[1:]
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
