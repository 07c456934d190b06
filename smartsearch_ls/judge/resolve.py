"""Turning a judge name from settings into a Pydantic AI model, once per name.

`local` is the embedded in-process judge (`judge.local.model.LocalJudge`, which scores a shortlist at once and
needs no Pydantic AI); any other name is what `pydantic_ai.models.infer_model` takes (`openai:gpt-4.1-mini`,
`system-one:clm-latest`, `typesafe:jev-latest`, `ollama:...`). Building a model
can fail for reasons the user must fix (unknown provider, missing API key or base URL, a provider extra
not installed): that becomes a `JudgeUnavailable` saying what to do, before any snippet is read.
Pydantic AI is imported when a judge is first resolved, not with this module (see `judge.contract`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from smartsearch_ls.judge.contract import JudgeConfig, ShortlistJudge
from smartsearch_ls.judge.loading import load_local_model
from smartsearch_ls.lazy_imports import HEAVY_IMPORTS

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from smartsearch_ls.settings import Settings

LOCAL = "local"
"""The embedded judge: no account, no network, source never leaves the machine."""


def is_local(name: str) -> bool:
    """Whether a judge name from settings is the embedded judge, read as `resolve_judge` reads it (spaces around it
    ignored): what it embeds, imports and warms up follows from this one answer everywhere."""
    return name.strip() == LOCAL


class JudgeUnavailable(Exception):
    """The configured judge cannot be built; the message says how to fix it."""


@cache
def resolve_judge(name: str) -> Model | ShortlistJudge:
    """The model for a judge name; cached, so providers' HTTP clients are reused across searches."""
    name = name.strip()
    if not name:
        raise JudgeUnavailable("No judge is configured: set `judge.model` (default `local`).")
    if is_local(name):
        try:
            return load_local_model()
        except ImportError as error:  # the runtime of the embedded judge is missing
            raise JudgeUnavailable(
                f"The embedded `local` judge cannot load ({error}). Reinstall it from your checkout into the "
                "environment that runs it: `pip install /path/to/smartsearch-ls`."
            ) from error
    try:
        with HEAVY_IMPORTS:  # inferring a model imports its provider's modules
            from pydantic_ai.models import infer_model

            return infer_model(name)
    except Exception as error:  # each provider raises its own kind for a missing key, URL or package
        raise JudgeUnavailable(
            f"Judge {name!r} cannot be used: {error}. Check the model name, the provider's API key or base URL "
            "in the server's environment, or use the embedded judge `local`."
        ) from error


def configured_judge(settings: Settings) -> JudgeConfig:
    """The judge the settings name, with their timeout and concurrency; raises `JudgeUnavailable` (see
    `resolve_judge`). Blocks while the model loads: async callers run it in a worker thread."""
    name = settings.judge.model.strip()  # named in results as resolved
    return JudgeConfig(resolve_judge(name), judge_name(name), settings.judge.timeout, settings.concurrency)


def judge_name(model: Model | ShortlistJudge | str) -> str:
    """How a judge is named in results: `provider:model`, or `local`."""
    if isinstance(model, str):
        return model
    if isinstance(model, ShortlistJudge):
        return model.name
    system = getattr(model, "system", None)
    return f"{system}:{model.model_name}" if system and system != LOCAL else model.model_name
