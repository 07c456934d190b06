"""Settings and search params: every bad value is named, none replaces a good one."""

from __future__ import annotations

import pytest

from smartsearch_ls.search.request import InvalidQuery, parse_params
from smartsearch_ls.settings import Settings, merge


def test_defaults_follow_the_contract() -> None:
    settings = Settings()
    assert (settings.judge.model, settings.judge.timeout, settings.threshold) == ("local", 30.0, 0.5)
    assert (settings.concurrency, settings.candidates, settings.limit) == (8, 128, 10)
    assert settings.workspace_symbol.judged is True and settings.exclude == []


def test_nested_and_dotted_keys_merge_and_bad_values_are_kept_out() -> None:
    settings, problems = merge(
        Settings(),
        {"judge": {"model": "openai:gpt-4.1-mini"}, "workspaceSymbol.judged": False, "threshold": 3, "bogus": 1},
    )
    assert settings.judge.model == "openai:gpt-4.1-mini" and settings.workspace_symbol.judged is False
    assert settings.threshold == 0.5
    assert any("`threshold`" in p.message for p in problems) and any("`bogus`" in p.message for p in problems)
    assert [str(p) for p in problems if "`threshold`" in p.message] == [
        "Setting `threshold` = 3 is invalid (Input should be less than or equal to 1); keeping 0.5."
    ]


def test_exclude_globs_are_kept_without_surrounding_spaces() -> None:
    settings, problems = merge(Settings(), {"exclude": [" build/** ", "dist"]})
    assert not problems and settings.exclude == ["build/**", "dist"]


@pytest.mark.parametrize("exclude", [[""], ["["], ["vendor/**", "{a,b"]])
def test_a_malformed_exclude_glob_is_refused_not_applied(exclude: list[str]) -> None:
    settings, problems = merge(Settings(exclude=["build/**"]), {"exclude": exclude})
    assert settings.exclude == ["build/**"]
    assert len(problems) == 1 and problems[0].message.startswith("Setting `exclude`")
    assert "Value error" not in problems[0].message


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x" * 2001}, "query"),
        ({"query": 3}, "query"),
        ({"query": "ok", "limit": 0}, "limit"),
        ({"query": "ok", "limit": 101}, "limit"),
        ({"query": "ok", "candidates": 257}, "candidates"),
        ({"query": "ok", "candidates": "9"}, "candidates"),
        ({"query": "ok", "mode": "fuzzy"}, "mode"),
        ({"query": "ok", "glob": ""}, "glob"),
        ({"query": "ok", "glob": "src/*.{ts,tsx"}, "glob"),
        ({"query": "ok", "glob": "["}, "glob"),
        ({"query": "ok", "directory": 7}, "directory"),
        ([], "params"),
    ],
)
def test_invalid_params_name_the_field(raw: object, field: str) -> None:
    with pytest.raises(InvalidQuery) as caught:
        parse_params(raw)
    assert caught.value.field == field
