"""One search as the engine receives it: the query's params, validated, and the request built from them.

`QueryParams` is shared by `smartSearch/query` (camelCase on the wire) and the command line, validated so that
every error names the field at fault. Limits come from the contract: a query of 1-2,000 characters, `limit`
1-100, `candidates` 1-256. `glob` takes one glob or a list (the command line's repeated `--glob`): a file matching
any passes, one matching a `!glob` is left out whatever the order, which is simpler to predict than ripgrep's `-g`,
where the last matching glob wins. `intent`, `context` and
`expandRelated` are the query-shape extensions (README, "Query shapes"). `SearchRequest` is those params with the
settings' defaults filled in and the scopes resolved. `Mode` and `Intent` are defined here, once, for the wire, the
command line and every step of the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, WithJsonSchema, field_validator

from smartsearch_ls.discovery.globs import glob_problem
from smartsearch_ls.settings import validation_reason

if TYPE_CHECKING:
    from pathlib import Path

    from smartsearch_ls.index.dense import DenseIndex
    from smartsearch_ls.index.shortlist import Scope
    from smartsearch_ls.settings import Settings

Mode = Literal["behavior", "symbol", "path"]
"""Which search answers: the judged search by behavior, the symbol look-up, or the path look-up."""

Intent = Literal["definition", "references", "tests", "file"]
"""What the caller wants of a name: where it is declared, where it is used, which tests exercise it, which files."""

MAX_QUERY_CHARS = 2_000

MAX_GLOBS = 32
"""Globs one search takes: a few narrow a search; more would be a listing of files, which is `directory`'s job."""

Glob = Annotated[str, StringConstraints(min_length=1, max_length=1_000)]

_GLOB_SCHEMA = {
    "anyOf": [
        {"type": "string", "minLength": 1, "maxLength": 1_000},
        {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 1_000},
            "minItems": 1,
            "maxItems": MAX_GLOBS,
        },
        {"type": "null"},
    ],
    "default": None,
    "title": "Glob",
}
"""What a client may send: one glob or a list (`QueryParams` holds a list either way)."""


class QueryParams(BaseModel):
    """`smartSearch/query` params; unknown fields are ignored so newer clients keep working."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, strict=True)

    query: str = Field(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        description="What the code does, in plain English (`where do we reject expired sessions`), "
        "or an identifier (`SessionStore.get`), or a path (`config/loader.py`).",
    )
    directory: str | None = Field(
        None, description="A workspace folder or a folder inside one (URI or path); default: every folder."
    )
    glob: Annotated[list[Glob] | None, WithJsonSchema(_GLOB_SCHEMA)] = Field(
        None,
        min_length=1,
        max_length=MAX_GLOBS,
        description="A ripgrep-style glob narrowing the files searched, or a list of them: a file matching any "
        "is searched, and one matching a `!glob` is not.",
    )
    limit: int | None = Field(None, ge=1, le=100, description="Matches returned; default: the `limit` setting (10).")
    candidates: int | None = Field(
        None, ge=1, le=256, description="Snippets shortlisted and judged; default: the `candidates` setting (128)."
    )
    mode: Literal["auto", Mode] = Field(
        "auto",
        description="`auto` routes by the query's shape: an identifier to `symbol`, a path to `path`, "
        "prose to `behavior` (the judged search).",
    )
    intent: Intent | None = Field(
        None,
        description="What is wanted of a name: its `definition`, its `references`, the `tests` that exercise it, "
        "or one match per `file`.",
    )
    context: str | None = Field(
        None, max_length=MAX_QUERY_CHARS, description="Words that re-rank the hits, never widen them."
    )
    expand_related: bool = Field(
        False,
        alias="expandRelated",
        description="Follow an imported name's import to its definition, and list the files the best hits import.",
    )
    work_done_token: int | str | None = Field(
        None, alias="workDoneToken", description="The LSP progress token this search reports on."
    )
    partial_result_token: int | str | None = Field(
        None,
        alias="partialResultToken",
        description="The LSP token on which the best matches so far are sent while a model judge works.",
    )

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @field_validator("glob", mode="before")
    @classmethod
    def _one_glob_or_a_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [value]
        if value is not None and not isinstance(value, list):
            raise ValueError("expected a glob or a list of globs")
        return value

    @field_validator("glob")
    @classmethod
    def _glob(cls, value: list[str] | None) -> list[str] | None:
        for glob in value or ():
            if (problem := glob_problem(glob)) is not None:
                raise ValueError(problem)
        return value

    @field_validator("context")
    @classmethod
    def _context(cls, value: str | None) -> str | None:
        return value.strip() or None if value is not None else None


class InvalidQuery(ValueError):
    """Bad search parameters; `field` names the first one at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"Invalid `{field}`: {message}")
        self.field = field


def parse_params(raw: Any) -> QueryParams:
    """Validate raw params (a dict from JSON) or raise `InvalidQuery` naming the field."""
    if raw is None:  # a request without params is one with no field: its first required one is missing
        raise InvalidQuery("query", "Field required")
    if not isinstance(raw, dict):
        raise InvalidQuery("params", "expected an object with at least `query`")
    try:
        return QueryParams.model_validate(raw)
    except ValidationError as error:
        loc = error.errors()[0]["loc"]
        if loc[:1] == ("glob",) and isinstance(raw.get("glob"), str):
            loc = ("glob",)  # one glob, held as a list of one: its item is the field the client sent
        field = ".".join(str(part) for part in loc) or "params"
        raise InvalidQuery(field, validation_reason(error)) from None


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A validated search over resolved scopes."""

    query: str
    scopes: Sequence[Scope]
    limit: int = 10
    candidates: int = 128
    threshold: float = 0.5
    mode: Mode | None = None
    """None routes by the query's shape (`auto`)."""
    dense: Sequence[DenseIndex] = ()
    """The embedding indexes of the scopes' roots, for the semantic side of the shortlist."""
    embed_missing: int | None = None
    """Candidates without a vector the search may embed itself (None: the shortlist's default, 0: none, so the
    semantic side uses only what background embedding has done; right when the judge will not embed them)."""
    intent: Intent | None = None
    """`definition`, `references`, `tests` or `file` (README, "Query shapes"); None: the shape's default."""
    context: str | None = None
    """Words that re-rank the hits (never widen them), e.g. `goal progress` for `remaining_value`."""
    expand_related: bool = False
    """Follow imports of the named symbol to its declaration, and list the files the best hits import."""
    working_set: frozenset[tuple[Path, str]] = frozenset()
    """(root, path) of the files edited in the editor this session: a small ranking signal, never a filter."""

    @classmethod
    def of(
        cls,
        params: QueryParams,
        settings: Settings,
        scopes: Sequence[Scope],
        mode: Mode | None,
        *,
        dense: Sequence[DenseIndex] = (),
        limit: int | None = None,
        embed_missing: int | None = None,
        working_set: frozenset[tuple[Path, str]] = frozenset(),
    ) -> SearchRequest:
        """The request for validated params, the settings filling in what they leave out; `limit` overrides both."""
        return cls(
            query=params.query,
            scopes=scopes,
            limit=limit or params.limit or settings.limit,
            candidates=params.candidates or settings.candidates,
            threshold=settings.threshold,
            mode=mode,
            dense=dense,
            embed_missing=embed_missing,
            intent=params.intent,
            context=params.context,
            expand_related=params.expand_related,
            working_set=working_set if settings.working_set else frozenset(),
        )
