"""The parameters of one search, validated so that every error names the field at fault.

Shared by `smartSearch/query` (camelCase on the wire) and the command line. Limits come from the contract:
a query of 1-2,000 characters, `limit` 1-100, `candidates` 1-256. `intent`, `context` and `expandRelated`
are the query-shape extensions (README, "Query shapes").
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from smartsearch_ls.discovery.globs import glob_problem
from smartsearch_ls.settings import validation_reason

MAX_QUERY_CHARS = 2_000


class QueryParams(BaseModel):
    """`smartSearch/query` params; unknown fields are ignored so newer clients keep working."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, strict=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    directory: str | None = None
    glob: str | None = Field(None, min_length=1, max_length=1_000)
    limit: int | None = Field(None, ge=1, le=100)
    candidates: int | None = Field(None, ge=1, le=256)
    mode: Literal["auto", "behavior", "symbol", "path"] = "auto"
    intent: Literal["definition", "references", "tests", "file"] | None = None
    context: str | None = Field(None, max_length=MAX_QUERY_CHARS)
    expand_related: bool = Field(False, alias="expandRelated")
    work_done_token: int | str | None = Field(None, alias="workDoneToken")

    @field_validator("query")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be blank")
        return value.strip()

    @field_validator("glob")
    @classmethod
    def _glob(cls, value: str | None) -> str | None:
        if value is not None and (problem := glob_problem(value)) is not None:
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
    if not isinstance(raw, dict):
        raise InvalidQuery("params", "expected an object with at least `query`")
    try:
        return QueryParams.model_validate(raw)
    except ValidationError as error:
        field = ".".join(str(part) for part in error.errors()[0]["loc"]) or "params"
        raise InvalidQuery(field, validation_reason(error)) from None
