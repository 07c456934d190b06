"""Settings, typed and defaulted in one place, shared by the server and the command line.

Clients send settings nested (`{"judge": {"model": ...}}`) or dotted (`{"judge.model": ...}`); both are
accepted. Keys are camelCase on the wire (`cacheDir`) and snake_case in Python (`settings.cache_dir`): the
models' aliases translate, so neither side bends to the other's convention. A wrong type or range never
replaces a good value: `merge` keeps the previous value and returns a message naming the key, which the server
shows as a warning; unknown keys are ignored and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from smartsearch_ls.cache_dir import default_cache_dir
from smartsearch_ls.discovery.globs import glob_problem


class JudgeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = Field("local", min_length=1, description="`local`, or any Pydantic AI model name.")
    timeout: float = Field(30.0, gt=0, le=600, description="Seconds per judgment.")


class WorkspaceSymbolSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True, alias_generator=to_camel, populate_by_name=True)

    judged: bool = Field(True, description="Whether prose-shaped workspace/symbol queries run a judged search.")
    min_words: int = Field(3, ge=1, le=20, description="Words a workspace/symbol query needs to count as prose.")
    debounce: float = Field(
        0.3, ge=0, le=5, description="Seconds a judged workspace/symbol query waits for the next keystroke."
    )


class Settings(BaseModel):
    """Everything configurable, with the contract's defaults."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, alias_generator=to_camel, populate_by_name=True)

    judge: JudgeSettings = Field(default_factory=JudgeSettings)
    threshold: float = Field(0.5, ge=0, le=1)
    concurrency: int = Field(8, ge=1, le=64)
    candidates: int = Field(128, ge=1, le=256)
    limit: int = Field(10, ge=1, le=100)
    exclude: list[str] = Field(default_factory=list)
    index_wait: float = Field(
        20.0, ge=0, le=600, description="Seconds a search waits for a folder still being indexed or re-listed."
    )
    semantic: bool = Field(
        True, description="Embed snippets in the background with the local model, for a hybrid shortlist."
    )
    cache_dir: Path = Field(default_factory=default_cache_dir)
    working_set: bool = Field(
        True,
        description="Files edited in the editor this session rank a little higher among matches about as good "
        "(never a filter).",
    )
    workspace_symbol: WorkspaceSymbolSettings = Field(default_factory=WorkspaceSymbolSettings)

    @field_validator("exclude")
    @classmethod
    def _globs(cls, value: list[str]) -> list[str]:
        """An empty or malformed glob is an error, not a pattern that quietly matches everything or nothing."""
        for glob in value:
            if (problem := glob_problem(glob)) is not None:
                raise ValueError(problem)
        return [glob.strip() for glob in value]  # `" build/** "` would be handed to rg as is, and match nothing


def _flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and name in _SECTIONS:
            flat.update(_flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


_SECTIONS = {"judge", "workspaceSymbol"}


class SettingProblem(NamedTuple):
    """One incoming setting that was not applied."""

    message: str
    """What is wrong, naming the setting."""
    kept: str = ""
    """The value left in force (the server goes on with it); empty for an unknown setting."""

    def __str__(self) -> str:
        return f"{self.message}; keeping {self.kept}." if self.kept else f"{self.message}."


def validation_reason(error: ValidationError) -> str:
    """The first error's message as a user reads it, without pydantic's "Value error, " prefix."""
    errors = error.errors()
    return str(errors[0]["msg"]).removeprefix("Value error, ") if errors else str(error)


def merge(current: Settings, incoming: Mapping[str, Any] | None) -> tuple[Settings, list[SettingProblem]]:
    """A copy of `current` with each valid incoming key applied; problems are returned, one per key."""
    updated = current.model_copy(deep=True)
    problems: list[SettingProblem] = []
    if not incoming:
        return updated, problems
    for key, value in _flatten(incoming).items():
        if value is None:
            continue  # a client sending null means "not set", as VS Code does for unset settings
        target: BaseModel = updated
        *sections, name = key.split(".")
        for section in sections:
            target = getattr(target, _field_of(target, section) or "", None)  # type: ignore[assignment]
            if not isinstance(target, BaseModel):
                break
        field = _field_of(target, name) if isinstance(target, BaseModel) else None
        if field is None:
            problems.append(SettingProblem(f"Unknown setting `{key}` ignored"))
            continue
        name = field
        try:
            setattr(target, name, value)
        except ValidationError as error:
            message = f"Setting `{key}` = {value!r} is invalid ({validation_reason(error)})"
            problems.append(SettingProblem(message, repr(getattr(target, name))))
    return updated, problems


def _field_of(model: BaseModel, key: str) -> str | None:
    """The attribute a wire key names (`cacheDir` -> `cache_dir`), or None when the model has no such setting."""
    for name, field in type(model).model_fields.items():
        if key == (field.alias or name):
            return name
    return None
