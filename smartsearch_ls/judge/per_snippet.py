"""Judging a shortlist one snippet at a time: one model request per snippet, `concurrency` at a time, all or nothing.

Each snippet is judged on its own so neighbours never lend each other evidence, and a remote API is asked what
it can answer: one snippet and one query. A failed judgment cancels the others and fails the search: a
half-judged result presented as complete is worse than an error, because "no matches" would then be a lie.
Cancelling the caller (an editor's `$/cancelRequest`) cancels every request in flight, and judgments still
waiting for a slot never start, so no judge request is sent after a cancel.

A judgment is one direct request (`pydantic_ai.direct.model_request`), not an agent run: it is one question
with one structured answer, so an agent's graph, run state, toolsets, hooks and per-run bookkeeping do nothing
for it, yet around a judge that answers at once they were nearly all of the cost (`python -m bench.judge_speed`
measures it; the figures are in README's performance section), which is what a warm search with a fast judge
saves. What the agent gave is kept here:

- the output: `OUTPUT` declares `Relevance` as an agent declares its output type, in mode `auto`, so each
  model's profile picks tool, native or prompted output, and a decision model gets the output tool it answers;
- the messages: each request's are prepared by the model as an agent run prepares them, so a snippet quoting a
  framework frame gets the framework's note and the announcement of what such notes mean;
- validation: the answer is read with `Relevance`; one that fails is sent back once with its validation errors
  (as the output tool call's result, or as retry feedback), and a second failure fails the search with them;
- timeouts: a model's own settings (`request_timeout` and the rest) apply, as `model_request` merges them, and
  `judge.timeout` bounds the whole judgment.

No result reports token usage, so none is summed.

Retry policy: a judge that answers HTTP 429 (rate limited) is asked again after the wait it names
(`Retry-After`, else 1 s), at most `RATE_LIMIT_RETRIES` times per request and only when that wait is at most
`MAX_RETRY_AFTER` seconds and fits in the judgment's `judge.timeout`; the snippet keeps its concurrency slot
while waiting, so a rate-limited search slows down instead of hammering. Any other failure (HTTP 5xx, a
refused connection, a timeout, an answer the provider cannot read) fails the search at once.

Imports Pydantic AI, so `judge.runner` imports this module only for a judge that needs it.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence

from pydantic import ValidationError
from pydantic_ai.direct import model_request
from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    UnexpectedModelBehavior,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryInfo,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.output import OutputObjectDefinition
from pydantic_ai.tools import GenerateToolJsonSchema, ToolDefinition

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.judge.contract import JudgeConfig, Judged, JudgeFailed, JudgingTally, Scored
from smartsearch_ls.judge.memory import JudgmentMemory, Key
from smartsearch_ls.judge.prompt import PROMPT_VERSION, Relevance, framed_snippet, instructions
from smartsearch_ls.judge.redact import Redacted

log = logging.getLogger(__name__)

RATE_LIMIT_RETRIES = 2
"""Times one request is sent again after HTTP 429, before the search fails."""

MAX_RETRY_AFTER = 10.0
"""Seconds: a judge asking for a longer wait fails the search at once, saying how long it asked for."""

DEFAULT_RETRY_AFTER = 1.0
"""Seconds waited after a 429 that names no wait."""

OUTPUT_RETRIES = 1
"""Times a judge whose answer fails validation is asked again, shown why, before the search fails."""

OUTPUT_TOOL = "final_result"
"""The output tool's name, the one an agent gives its only output tool (a decision model then goes by the output
object's name, `Relevance`)."""


def _output_parameters() -> ModelRequestParameters:
    """`Relevance` as the output of a request, as an agent with `output_type=Relevance` declares it.

    The mode is `auto`, so each model's profile picks tool, native or prompted output as it does for an agent run;
    the schema is the one Pydantic AI gives tools (no per-field titles), and the docstring is the description.
    """
    schema = Relevance.model_json_schema(schema_generator=GenerateToolJsonSchema)
    description = schema.pop("description")
    return ModelRequestParameters(
        output_mode="auto",
        output_object=OutputObjectDefinition(json_schema=schema, name=Relevance.__name__, description=description),
        output_tools=[
            ToolDefinition(name=OUTPUT_TOOL, parameters_json_schema=schema, description=description, kind="output")
        ],
    )


OUTPUT = _output_parameters()

_FENCED_JSON = re.compile(r"```(?:\w+)?\r?\n(\{.*?\})\s*(?:\r?\n?```|\Z)", re.DOTALL)
"""A JSON object in a Markdown code fence, as models in prompted mode often answer; an agent reads it the same way."""


async def judge_each(
    config: JudgeConfig,
    query: str,
    snippets: Sequence[Snippet],
    redactions: Sequence[Redacted],
    cache: JudgmentCache,
    on_judged: Judged | None = None,
    memories: Sequence[JudgmentMemory | None] | None = None,
    tally: JudgingTally | None = None,
    on_scored: Scored | None = None,
) -> list[float]:
    """Relevance in [0, 1] of each snippet, in order; raises `JudgeFailed` if any judgment fails. `redactions`
    are the snippets' texts with their secrets redacted (`redact`), which is all the judge is sent; `memories`
    (one per snippet, or None) keep judgments across restarts, and `tally` counts those taken from them;
    `on_scored` hears each relevance as it is known (those cached or remembered first).

    Judgments are keyed by the judge's name and `PROMPT_VERSION`, so a changed prompt never reuses an old answer.
    Each answer is remembered even when another judgment fails the search: it cost a request, and it is valid.
    """
    version = f"{config.name}@{PROMPT_VERSION}"
    keys = [cache.key(version, query.casefold(), s) for s in snippets]
    scores: list[float | None] = [cache.get(k) for k in keys]
    where = list(memories) if memories is not None else [None] * len(snippets)
    remembered = (
        await asyncio.to_thread(_recall, keys, scores, where, cache) if any(m is not None for m in where) else 0
    )
    if tally is not None:
        tally.remembered += remembered
    pending = [i for i, s in enumerate(scores) if s is None]
    done = len(snippets) - len(pending)
    if on_scored is not None and pending and done:
        on_scored([(i, known) for i, known in enumerate(scores) if known is not None])
    if on_judged is not None:
        on_judged(done, len(snippets))
    if not pending:
        return [s for s in scores if s is not None]

    task = instructions(query)
    gate = asyncio.Semaphore(max(1, config.concurrency))
    loop = asyncio.get_running_loop()

    async def answer(messages: list[ModelMessage], deadline: float) -> ModelResponse:
        """One request, asked again after the wait a rate-limiting judge names (see the module's retry policy)."""
        # Prepared as an agent run prepares each request (`model_request` does so only for histories with retry
        # feedback): that is where a snippet quoting a framework frame gets its note.
        prepared = config.model.prepare_messages(list(messages), OUTPUT)
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            try:
                return await model_request(config.model, prepared, model_request_parameters=OUTPUT)
            except ModelAPIError as error:
                wait = retry_after(error)
                if wait is None:
                    raise
                if attempt == RATE_LIMIT_RETRIES or wait > MAX_RETRY_AFTER or loop.time() + wait >= deadline:
                    detail = f"asked to retry after {wait:g} s; retried {attempt} times"
                    raise JudgeFailed(describe_failure(config.name, error, detail)) from error
                await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def judgment(snippet: Snippet, redacted: Redacted, deadline: float) -> Relevance:
        messages: list[ModelMessage] = [
            ModelRequest.user_text_prompt(framed_snippet(snippet, redacted), instructions=task)
        ]
        for retry in range(OUTPUT_RETRIES + 1):
            response = await answer(messages, deadline)
            try:
                return read_relevance(response)
            except ValidationError as error:
                if retry == OUTPUT_RETRIES:
                    raise UnexpectedModelBehavior(
                        f"{OUTPUT_RETRIES + 1} answers failed validation, the last with {validation_errors(error)}"
                    ) from error
                messages = [*messages, response, ModelRequest(parts=[feedback(response, error)], instructions=task)]
        raise AssertionError("unreachable")

    async def judge_one(i: int) -> None:
        nonlocal done
        async with gate:
            try:
                async with asyncio.timeout(config.timeout):
                    output = await judgment(snippets[i], redactions[i], loop.time() + config.timeout)
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
        if on_scored is not None:
            on_scored([(i, score)])
        if on_judged is not None:
            on_judged(done, len(snippets))

    try:
        async with asyncio.TaskGroup() as group:
            for i in pending:
                group.create_task(judge_one(i))
    except* JudgeFailed as failures:
        raise failures.exceptions[0] from None
    finally:
        try:
            await asyncio.to_thread(_remember, keys, scores, pending, where)
        except Exception:  # the memory is a saving: its failure must not replace the search's own outcome
            log.exception("keeping the judgments of %r in the judgment memory failed", query[:80])
    return [s if s is not None else 0.0 for s in scores]


def _recall(
    keys: Sequence[Key], scores: list[float | None], memories: Sequence[JudgmentMemory | None], cache: JudgmentCache
) -> int:
    """Fill `scores` from each snippet's memory where the process had no judgment; how many were filled."""
    asked: dict[int, list[int]] = {}
    for i, (score, memory) in enumerate(zip(scores, memories, strict=True)):
        if score is None and memory is not None:
            asked.setdefault(id(memory), []).append(i)
    filled = 0
    for positions in asked.values():
        memory = memories[positions[0]]
        assert memory is not None
        found = memory.recall(keys[i] for i in positions)
        for i in positions:
            if (score := found.get(keys[i])) is not None:
                scores[i] = score
                cache.put(keys[i], score)
                filled += 1
    return filled


def _remember(
    keys: Sequence[Key],
    scores: Sequence[float | None],
    judged: Sequence[int],
    memories: Sequence[JudgmentMemory | None],
) -> None:
    """Persist the judgments this call made, each in its snippet's memory."""
    by_memory: dict[int, tuple[JudgmentMemory, dict[Key, float]]] = {}
    for i in judged:
        memory, score = memories[i], scores[i]
        if memory is not None and score is not None:
            by_memory.setdefault(id(memory), (memory, {}))[1][keys[i]] = score
    for memory, new in by_memory.values():
        memory.remember(new)


def _output_call(response: ModelResponse) -> ToolCallPart | None:
    return next((p for p in response.parts if isinstance(p, ToolCallPart) and p.tool_name == OUTPUT_TOOL), None)


def read_relevance(response: ModelResponse) -> Relevance:
    """The judgment in an answer: the output tool's arguments, else its text as JSON (native and prompted output);
    raises `ValidationError` when it is missing or out of shape."""
    call = _output_call(response)
    if call is not None:
        args = call.args
        if isinstance(args, str):
            return Relevance.model_validate_json(args or "{}")
        return Relevance.model_validate(args or {})
    text = response.text or ""
    if not text.startswith("{") and (fenced := _FENCED_JSON.search(text)):
        text = fenced[1]
    return Relevance.model_validate_json(text or "{}")


def validation_errors(error: ValidationError) -> str:
    """The errors of an answer in one line, as the user reads them in a failed search's message."""
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']} (got {e['input']!r:.60})" for e in error.errors()
    )


def feedback(response: ModelResponse, error: ValidationError) -> ToolReturnPart | RetryFeedbackPart:
    """What an agent sends back about an answer that failed validation: the output tool call's own result when
    the answer was one, else retry feedback; either way the validation errors, which the model is to fix."""
    # An agent also leaves out an `input` repeated from an earlier error, so that a large answer is not quoted once
    # per error; the two numbers of an answer here are not worth copying that private rule.
    errors = error.errors(include_url=False, include_context=False)
    retry = RetryInfo(cause="validation_error")
    call = _output_call(response)
    if call is None:
        return RetryFeedbackPart(content=errors, retry=retry)
    return ToolReturnPart(call.tool_name, errors, call.tool_call_id, outcome="retried", retry=retry)


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
