"""Judging a shortlist: one agent run per snippet, `concurrency` at a time, all or nothing.

Each snippet is judged in its own run so neighbours never lend each other evidence. A failed judgment
cancels the others and fails the search: a half-judged result presented as complete is worse than an
error, because "no matches" would then be a lie. Cancelling the caller (an editor's `$/cancelRequest`)
cancels every run in flight, and runs still waiting for a slot never start, so no judge request is sent
after a cancel. Judgments are cached by (judge, query, snippet content), so repeating a search, or
searching again after editing one file, only pays for what changed.

Retry policy: a judge that answers HTTP 429 (rate limited) is asked again after the wait it names
(`Retry-After`, else 1 s), at most `RATE_LIMIT_RETRIES` times per snippet and only when that wait is at most
`MAX_RETRY_AFTER` seconds and fits in the judgment's `judge.timeout`; the snippet keeps its concurrency slot
while waiting, so a rate-limited search slows down instead of hammering. Any other failure (HTTP 5xx, a
refused connection, a timeout, an answer out of shape or out of range) fails the search at once.

Secrets in a snippet are redacted before it is framed (`redact_snippet`); when the front end installed a
`RedactionTally`, each shortlisted snippet with something redacted is counted in it.

A model that does better with the whole batch in view (`PreparesBatches`: the embedded judge embeds the
snippets in calls of up to 128 instead of `concurrency` at a time) is shown all the prompts before the runs
start; each snippet is still judged in its own run. Preparing has `judge.timeout` (which is per judgment) as a
whole; if it runs out, the runs go ahead and do what is left, each within its own timeout, so a short timeout
that the judgments meet one by one never fails a search because the batch was large. A preparation that fails
fails the search, as a judgment would.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic_ai import Agent
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    UnexpectedModelBehavior,
)

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.judgments import JudgeConfig, Judged, JudgeFailed, JudgmentCache
from smartsearch_ls.judge.prompt import Relevance, framed_snippet, instructions
from smartsearch_ls.judge.redact import current_tally, redact_snippet

log = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 2
"""Times one snippet's judgment is asked again after HTTP 429, before the search fails."""

MAX_RETRY_AFTER = 10.0
"""Seconds: a judge asking for a longer wait fails the search at once, saying how long it asked for."""

DEFAULT_RETRY_AFTER = 1.0
"""Seconds waited after a 429 that names no wait."""


@runtime_checkable
class PreparesBatches(Protocol):
    """A judge model that can get ready for a search's runs at once, given their instructions and prompts."""

    async def prepare_batch(self, instructions: str, prompts: Sequence[str]) -> None: ...


async def judge_snippets(
    config: JudgeConfig,
    query: str,
    snippets: Sequence[Snippet],
    cache: JudgmentCache,
    on_judged: Judged | None = None,
) -> list[float]:
    """Relevance in [0, 1] of each snippet, in order; raises `JudgeFailed` if any judgment fails."""
    keys = [cache.key(config.name, query, s) for s in snippets]
    redactions = [redact_snippet(s) for s in snippets]
    if (tally := current_tally()) is not None:
        for redacted in redactions:
            tally.add(redacted)
    scores: list[float | None] = [cache.get(k) for k in keys]
    pending = [i for i, s in enumerate(scores) if s is None]
    done = len(snippets) - len(pending)
    if on_judged is not None:
        on_judged(done, len(snippets))
    if not pending:
        return [s for s in scores if s is not None]

    prompts = {i: framed_snippet(snippets[i], redactions[i]) for i in pending}
    if isinstance(config.model, PreparesBatches):
        try:
            async with asyncio.timeout(config.timeout):
                await config.model.prepare_batch(instructions(query), list(prompts.values()))
        except TimeoutError:  # preparing only saves time: the runs do what is left, each within the timeout
            log.info("judge %s did not finish preparing %d prompts in %g s", config.name, len(prompts), config.timeout)
        except Exception as error:
            raise JudgeFailed(describe_failure(config.name, error)) from error
    agent = Agent(config.model, output_type=Relevance, instructions=instructions(query), retries=0, name="smartsearch")
    gate = asyncio.Semaphore(max(1, config.concurrency))
    loop = asyncio.get_running_loop()

    async def ask(prompt: str, deadline: float) -> Relevance:
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            try:
                return (await agent.run(prompt)).output
            except ModelAPIError as error:
                wait = retry_after(error)
                if wait is None:
                    raise
                if attempt == RATE_LIMIT_RETRIES or wait > MAX_RETRY_AFTER or loop.time() + wait >= deadline:
                    detail = f"asked to retry after {wait:g} s; retried {attempt} times"
                    raise JudgeFailed(describe_failure(config.name, error, detail)) from error
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def judge_one(i: int) -> None:
        nonlocal done
        async with gate:
            try:
                async with asyncio.timeout(config.timeout):
                    output = await ask(prompts[i], loop.time() + config.timeout)
            except JudgeFailed:
                raise
            except TimeoutError as error:
                raise JudgeFailed(
                    f"Judge {config.name} did not answer within {config.timeout:g} s: raise `judge.timeout` "
                    "(`--timeout`), lower `concurrency`, or check the model service. No partial result was returned."
                ) from error
            except Exception as error:
                raise JudgeFailed(describe_failure(config.name, error)) from error
        score = max(0.0, min(1.0, output.score))
        cache.put(keys[i], score)
        scores[i] = score
        done += 1
        if on_judged is not None:
            on_judged(done, len(snippets))

    try:
        async with asyncio.TaskGroup() as group:
            for i in pending:
                group.create_task(judge_one(i))
    except* JudgeFailed as failures:
        raise failures.exceptions[0] from None
    return [s if s is not None else 0.0 for s in scores]


def retry_after(error: BaseException) -> float | None:
    """Seconds to wait before asking again when the judge rate-limited us (HTTP 429); None for other errors."""
    status = getattr(error, "status_code", None)
    if not isinstance(error, ModelRateLimitError) and status != 429:
        return None
    wait = getattr(error, "retry_after", None)
    if wait is None and isinstance(error, ModelHTTPError) and error.headers:
        try:
            wait = float(error.headers.get("retry-after", ""))
        except ValueError:
            wait = None
    return max(0.0, wait) if wait is not None else DEFAULT_RETRY_AFTER


def describe_failure(judge: str, error: BaseException, detail: str = "") -> str:
    """A judge error as the user should read it: what failed and what to do next."""
    cause = f"{type(error).__name__}: {error}".strip()
    if isinstance(error, ModelAuthenticationError):
        advice = "check the API key in the server's environment"
    elif isinstance(error, ModelRateLimitError):
        advice = "the service is rate limiting: lower `concurrency` or `candidates`, or retry later"
    elif isinstance(error, ModelConnectionError):
        advice = "the service could not be reached: check its URL and that it is running"
    elif isinstance(error, UnexpectedModelBehavior):
        advice = "the model answered out of shape: try another judge model"
    elif isinstance(error, ModelAPIError):
        advice = "the model service failed: retry, or configure another judge"
    else:
        advice = "check the judge configuration, or use the embedded judge `local`"
    if detail:
        advice = f"{advice} ({detail})"
    return f"Judge {judge} failed ({cause[:500]}): {advice}. No partial result was returned."
