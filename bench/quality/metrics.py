"""Search quality metrics over a labelled query set.

Why these: a person acts on the first answer, so top-1 file and top-1 span come first; MRR@10 and recall@10 say
how far down the right code sits when the first answer is wrong; shortlist recall@K separates the two halves of
the pipeline (a gold span the lexical shortlist never offered cannot be rescued by the judge, however good); and
negatives (queries whose behavior is not in the corpus) check the engine can say "nothing", which a ranking
metric alone never rewards.

A hit counts for a gold span when both are in the same file and their 1-based inclusive line ranges overlap.

Formats. A query case is one JSON line `{"corpus": str, "query": str, "gold": [{"path", "start_line",
"end_line"}, ...]}` (`gold: []` for a negative). A results file is JSON lines `{"corpus": str, "query": str,
"hits": [[path, start, end], ...], "shortlist": [[path, start, end], ...]}` (`shortlist` optional), matched to
the cases by `(corpus, query)`; the peer runner's JSON output is accepted too (see `load_results`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

Span = tuple[str, int, int]
"""`(path, start_line, end_line)`: path relative to the corpus root, '/'-separated; lines 1-based, inclusive."""

DEFAULT_K = 10
DEFAULT_SHORTLIST_KS = (16, 32, 64, 128)


@dataclass(frozen=True, slots=True)
class QueryCase:
    corpus: str
    query: str
    gold: tuple[Span, ...]

    @property
    def negative(self) -> bool:
        """The behavior does not exist in the corpus: the right answer is no match at all."""
        return not self.gold

    @property
    def key(self) -> tuple[str, str]:
        return self.corpus, self.query


@dataclass(frozen=True, slots=True)
class QueryResult:
    hits: tuple[Span, ...]
    """The final ranked answer, best first; empty for "no match"."""
    shortlist: tuple[Span, ...] = ()
    """The snippets the lexical stage sent to the judge, in shortlist order; empty when not recorded."""


def normalize_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _span(raw: Sequence[object] | Mapping[str, object]) -> Span:
    if isinstance(raw, Mapping):
        return normalize_path(str(raw["path"])), int(raw["start_line"]), int(raw["end_line"])  # type: ignore[call-overload]
    path, start, end = raw
    return normalize_path(str(path)), int(start), int(end)  # type: ignore[call-overload]


def load_cases(path: Path | str) -> list[QueryCase]:
    """Query cases from a JSON-lines file (blank lines, `//` comment lines and questions labeled `partial`, which
    no figure scores, skipped), or from every `*.jsonl` file of a folder in name order."""
    path = Path(path)
    if path.is_dir():
        return [case for file in sorted(path.glob("*.jsonl")) for case in load_cases(file)]
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            raw = json.loads(line)
            if raw.get("label") != "partial":
                cases.append(QueryCase(raw["corpus"], raw["query"], tuple(_span(g) for g in raw["gold"])))
    return cases


def load_results(path: Path | str) -> dict[tuple[str, str], QueryResult]:
    """Results keyed by `(corpus, query)`, from a JSON-lines results file or a peer runner JSON document."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None  # JSON lines
    if isinstance(doc, dict) and "queries" in doc:
        rows: Iterable[Mapping[str, object]] = doc["queries"]
        return {
            (str(r["corpus"]), str(r["query"])): QueryResult(
                tuple(_span(h) for h in r["hits"]),  # type: ignore[attr-defined]
                tuple(_span(h) for h in r.get("shortlist", r.get("judged", ()))),  # type: ignore[attr-defined]
            )
            for r in rows
        }
    out = {}
    for line in text.splitlines():
        if line.strip():
            r = json.loads(line)
            out[(r["corpus"], r["query"])] = QueryResult(
                tuple(_span(h) for h in r["hits"]), tuple(_span(h) for h in r.get("shortlist", ()))
            )
    return out


def overlaps(a: Span, b: Span) -> bool:
    return a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def is_hit(hit: Span, gold: Sequence[Span]) -> bool:
    return any(overlaps(hit, g) for g in gold)


def first_hit_rank(hits: Sequence[Span], gold: Sequence[Span], k: int = DEFAULT_K) -> int | None:
    """1-based rank of the first hit that overlaps a gold span within the top `k`, or None."""
    for rank, hit in enumerate(hits[:k], start=1):
        if is_hit(hit, gold):
            return rank
    return None


def reciprocal_rank(hits: Sequence[Span], gold: Sequence[Span], k: int = DEFAULT_K) -> float:
    rank = first_hit_rank(hits, gold, k)
    return 0.0 if rank is None else 1.0 / rank


def recall_at(hits: Sequence[Span], gold: Sequence[Span], k: int = DEFAULT_K) -> float:
    """Fraction of the gold spans overlapped by at least one of the top `k` hits (1.0 for no gold)."""
    if not gold:
        return 1.0
    top = hits[:k]
    return sum(any(overlaps(h, g) for h in top) for g in gold) / len(gold)


def top1_file(hits: Sequence[Span], gold: Sequence[Span]) -> bool:
    return bool(hits) and any(hits[0][0] == g[0] for g in gold)


def top1_span(hits: Sequence[Span], gold: Sequence[Span]) -> bool:
    return bool(hits) and is_hit(hits[0], gold)


def shortlist_hit(shortlist: Sequence[Span], gold: Sequence[Span], k: int) -> bool:
    """Whether any gold span is overlapped by one of the first `k` shortlisted snippets."""
    return any(is_hit(s, gold) for s in shortlist[:k])


@dataclass
class QualityReport:
    """Averages over the positive queries, plus the negatives' empty-answer rate. Rates are in [0, 1]."""

    positives: int = 0
    negatives: int = 0
    missing: int = 0
    """Cases with no result at all; counted as empty answers."""
    top1_file: float = 0.0
    top1_span: float = 0.0
    mrr: float = 0.0
    recall: float = 0.0
    k: int = DEFAULT_K
    shortlist_recall: dict[int, float] = field(default_factory=dict)
    """K -> fraction of positives with a gold span among the first K shortlisted snippets."""
    negatives_empty: float = 0.0
    """Fraction of negatives answered with no match at all."""
    per_query: list[dict[str, object]] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        return {
            "positives": self.positives,
            "negatives": self.negatives,
            "missing": self.missing,
            "top1_file": round(self.top1_file, 4),
            "top1_span": round(self.top1_span, 4),
            f"mrr@{self.k}": round(self.mrr, 4),
            f"recall@{self.k}": round(self.recall, 4),
            **{f"shortlist_recall@{k}": round(v, 4) for k, v in self.shortlist_recall.items()},
            "negatives_empty": round(self.negatives_empty, 4),
        }


def evaluate(
    cases: Sequence[QueryCase],
    results: Mapping[tuple[str, str], QueryResult],
    *,
    k: int = DEFAULT_K,
    shortlist_ks: Sequence[int] = DEFAULT_SHORTLIST_KS,
) -> QualityReport:
    """Score `results` against `cases`. Shortlist recall is reported only when some result has a shortlist."""
    report = QualityReport(k=k)
    positives = [c for c in cases if not c.negative]
    negatives = [c for c in cases if c.negative]
    report.positives, report.negatives = len(positives), len(negatives)
    empty = QueryResult(())
    has_shortlist = any(r.shortlist for r in results.values())
    sl_counts = dict.fromkeys(shortlist_ks, 0)
    for case in cases:
        result = results.get(case.key)
        if result is None:
            report.missing += 1
            result = empty
        row: dict[str, object] = {"corpus": case.corpus, "query": case.query}
        if case.negative:
            row["empty"] = not result.hits
            report.negatives_empty += not result.hits
        else:
            row.update(
                top1_file=top1_file(result.hits, case.gold),
                top1_span=top1_span(result.hits, case.gold),
                rank=first_hit_rank(result.hits, case.gold, k),
                recall=recall_at(result.hits, case.gold, k),
            )
            report.top1_file += bool(row["top1_file"])
            report.top1_span += bool(row["top1_span"])
            report.mrr += reciprocal_rank(result.hits, case.gold, k)
            report.recall += float(row["recall"])  # type: ignore[arg-type]
            if has_shortlist:
                for sk in shortlist_ks:
                    sl_counts[sk] += shortlist_hit(result.shortlist, case.gold, sk)
        report.per_query.append(row)
    if positives:
        n = len(positives)
        report.top1_file /= n
        report.top1_span /= n
        report.mrr /= n
        report.recall /= n
        if has_shortlist:
            report.shortlist_recall = {sk: c / n for sk, c in sl_counts.items()}
    if negatives:
        report.negatives_empty /= len(negatives)
    return report


def write_results(path: Path | str, cases: Sequence[QueryCase], results: Sequence[QueryResult]) -> None:
    """Write `results` (aligned with `cases`) as a JSON-lines results file."""
    with Path(path).open("w", encoding="utf-8") as f:
        for case, result in zip(cases, results, strict=True):
            row = {
                "corpus": case.corpus,
                "query": case.query,
                "hits": [list(h) for h in result.hits],
                "shortlist": [list(s) for s in result.shortlist],
            }
            f.write(json.dumps(row) + "\n")
