"""Judging a shortlist: the whole shortlist in one call for a judge that can, one snippet at a time otherwise.

The embedded `local` judge (a `ShortlistJudge`) runs in the process and weighs each candidate against its
rivals, so it gets the shortlist at once with the evidence the shortlist gathered (BM25 scores, cosines, the
rarity of the query's words); every other judge is a Pydantic AI model asked about each snippet on its own
(`per_snippet`, which imports Pydantic AI only when it is first needed). Both paths keep the same promises:
secrets are redacted before any judge sees a snippet (`redact_snippet`; each shortlisted snippet with something
redacted is counted in the front end's `RedactionTally`), a failure fails the whole search, cancelling the
caller stops the judging, `judge.timeout` bounds a judgment (for the shortlist judge, the whole call), and
judgments are cached by (judge, query, snippet content) so repeating a search only pays for what changed. A
shortlist judge's scores depend on the whole shortlist, so its cache key holds the shortlist's content too; it
runs in the process in milliseconds, so only a model judge's answers are also kept across restarts (each
candidate's `Evidence.memory`), where each one cost a request.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.cache import JudgmentCache, content_hash
from smartsearch_ls.judge.contract import (
    Evidence,
    JudgeConfig,
    Judged,
    JudgeFailed,
    JudgingTally,
    Scored,
    ShortlistJudge,
)
from smartsearch_ls.judge.redact import Redacted, current_tally, redact_snippet
from smartsearch_ls.lazy_imports import HEAVY_IMPORTS


async def judge_snippets(
    config: JudgeConfig,
    query: str,
    shortlist: Sequence[Evidence | Snippet],
    cache: JudgmentCache,
    on_judged: Judged | None = None,
    idf: Mapping[str, float] | None = None,
    tally: JudgingTally | None = None,
    on_scored: Scored | None = None,
) -> list[float]:
    """Relevance in [0, 1] of each candidate, in order; raises `JudgeFailed` if any judgment fails.

    Candidates are `Evidence` (the shortlist's scores with the snippet) or bare snippets; `idf` is the rarity of
    the query's terms in the searched roots, which a shortlist judge weighs (None: no root is known); `tally`
    counts the judgments taken from the persisted memory; `on_scored` hears each model judgment as it is known
    (a shortlist judge's come all at once, as the return value).
    """
    evidence = [item if isinstance(item, Evidence) else Evidence(item) for item in shortlist]
    # Off the event loop: a cold shortlist's scan takes tens of milliseconds, which edits and requests would wait for.
    redactions = await asyncio.to_thread(lambda: [redact_snippet(e.snippet) for e in evidence])
    in_process = isinstance(config.model, ShortlistJudge)
    # The result reports what a judge was sent without; the embedded judge reads the same redacted text but is sent
    # nothing, and a warning that "other secrets were sent as written" misled its users.
    if (redaction_tally := current_tally()) is not None and not in_process:
        for redacted in redactions:
            redaction_tally.add(redacted)
    if in_process:
        return await _judge_shortlist(config, config.model, query, evidence, redactions, cache, on_judged, idf)
    with HEAVY_IMPORTS:  # Pydantic AI, on the first search a model judges
        from smartsearch_ls.judge.per_snippet import judge_each

    snippets = [e.snippet for e in evidence]
    memories = [e.memory for e in evidence]
    return await judge_each(config, query, snippets, redactions, cache, on_judged, memories, tally, on_scored)


async def _judge_shortlist(
    config: JudgeConfig,
    judge: ShortlistJudge,
    query: str,
    evidence: list[Evidence],
    redactions: list[Redacted],
    cache: JudgmentCache,
    on_judged: Judged | None,
    idf: Mapping[str, float] | None,
) -> list[float]:
    shown = [
        e if r.text == e.snippet.text else replace(e, snippet=e.snippet.replace(text=r.text))
        for e, r in zip(evidence, redactions, strict=True)
    ]
    together = _shortlist_digest(query, [e.snippet for e in shown])
    keys = [cache.key(config.name, together, e.snippet) for e in shown]
    cached = [cache.get(k) for k in keys]
    if all(score is not None for score in cached):
        if on_judged is not None:
            on_judged(len(shown), len(shown))
        return [score for score in cached if score is not None]
    if on_judged is not None:
        on_judged(0, len(shown))
    try:
        async with asyncio.timeout(config.timeout):
            scores = await judge.score_shortlist(query, shown, idf)
    except TimeoutError as error:
        raise JudgeFailed(
            f"Judge {config.name} did not score {len(shown)} snippets within {config.timeout:g} s: raise "
            "`judge.timeout` (`--timeout`) or lower `candidates`. No partial result was returned."
        ) from error
    except Exception as error:
        raise JudgeFailed(
            f"Judge {config.name} failed ({type(error).__name__}: {str(error)[:500]}): retry, or configure another "
            "judge. No partial result was returned."
        ) from error
    if len(scores) != len(shown):
        raise JudgeFailed(f"Judge {config.name} scored {len(scores)} of {len(shown)} snippets; no result returned.")
    bounded = [max(0.0, min(1.0, float(score))) for score in scores]
    for key, score in zip(keys, bounded, strict=True):
        cache.put(key, score)
    if on_judged is not None:
        on_judged(len(shown), len(shown))
    return bounded


def _shortlist_digest(query: str, snippets: Sequence[Snippet]) -> str:
    """The query and the shortlist's content, as one cache component: a shortlist judge's score for a snippet
    holds only for that query among those rivals."""
    digest = hashlib.blake2b(digest_size=16)
    for snippet in snippets:
        digest.update(content_hash(snippet).encode())
    return f"{query}\0{digest.hexdigest()}"
