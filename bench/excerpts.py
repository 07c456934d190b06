"""Whether a match's 12-line excerpt shows the lines that answer, where the answer is narrower than the match.

`python -m bench.excerpts --run bench/results/behavior` (a `bench quality --behavior` run's folder; the corpora
prepared). A question counts when its first gold-holding match among the no-threshold answer's first ten is a
snippet longer than an excerpt whose gold lines are only part of it; it is shown when the excerpt the engine cuts
from that snippet for the question (`search.excerpt.focus`) overlaps a gold span. The engine may instead show a
narrower judged snippet inside the match that also passed (`excerpt.evidence`); a run's answers do not keep those,
so they are left out here. A match is found again by chunking its file with today's chunker: read a run made with
today's chunking (a match whose span it no longer cuts is not counted). The figures rank nothing: they say whether a
reader who opens the right match sees the right lines first (bench/ranker/README.md has the runs).
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from bench.__main__ import resolve_root
from bench.quality import metrics, sets
from smartsearch_ls.chunking import chunk_file
from smartsearch_ls.chunking.snippet import ChunkedFile, Snippet
from smartsearch_ls.search.excerpt import EXCERPT_LINES, focus


@functools.cache
def _chunked(corpus: str, path: str) -> ChunkedFile | None:
    try:
        return chunk_file(path, (resolve_root(corpus) / path).read_text(encoding="utf-8"))
    except UnicodeDecodeError:  # the engine skips such a file too; a missing corpus is an error, raised
        return None


def _narrower_answer(
    case: metrics.QueryCase, hits: tuple[metrics.Span, ...]
) -> tuple[Snippet, list[metrics.Span]] | None:
    """The first match of the first ten holding gold, with the gold spans it holds, when those are only part of a
    snippet longer than an excerpt."""
    for hit in hits[:10]:
        gold = [g for g in case.gold if metrics.overlaps(hit, g)]
        if not gold:
            continue
        chunked = _chunked(case.corpus, hit[0])
        snippets = chunked.snippets if chunked else ()
        snippet = next((s for s in snippets if (s.start_line, s.end_line) == hit[1:]), None)
        covered = all(g[1] <= hit[1] and hit[2] <= g[2] for g in gold)
        if snippet is None or covered or snippet.end_line - snippet.start_line + 1 <= EXCERPT_LINES:
            return None
        return snippet, gold
    return None


def shown_share(run: Path, part: sets.Part) -> tuple[int, int]:
    """(shown, counted) over the part's answerable questions, from the run's no-threshold answers."""
    results = metrics.load_results(run / f"behavior {part}.ours-hybrid+local@0.jsonl")
    shown = counted = 0
    for case in sets.behavior_cases(part):
        found = None if case.negative else _narrower_answer(case, results[case.key].hits)
        if found is None:
            continue
        snippet, gold = found
        start, end, _ = focus(snippet, case.query)
        counted += 1
        shown += any(metrics.overlaps((snippet.path, start, end), g) for g in gold)
    return shown, counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--run", type=Path, required=True, help="a `bench quality --behavior --out` folder")
    args = parser.parse_args()
    parts: tuple[sets.Part, ...] = ("development", "held-out")
    for part in parts:
        shown, counted = shown_share(args.run, part)
        print(f"{part}: the excerpt shows the answer in {shown} of {counted} ({shown / max(counted, 1):.3f})")


if __name__ == "__main__":
    main()
