"""The query-shape params and fields over LSP: the real server on the sample project, a judge on loopback."""

from __future__ import annotations

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.support.sessions import Session, session, workspace  # noqa: F401 - fixtures used by name


async def test_identifier_references_over_lsp(session: Session) -> None:  # noqa: F811
    result = await session.query(query="SessionStore", intent="references")
    assert result.mode == "symbol" and result.intent == "references" and result.judge is None
    places = [(m.path, m.location.range.start.line, m.source) for m in result.matches]
    assert ("tests/test_sessions.py", 0, "import") in places  # 0-based lines on the wire
    assert ("tests/test_sessions.py", 4, "reference") in places
    assert [c.path for c in result.candidates] == ["tests/test_sessions.py"]
    assert result.candidates[0].uri == (session.root / "tests/test_sessions.py").resolve().as_uri()
    assert result.candidates[0].reason == "1 import and 1 use"
    assert result.coverage.searches == ["references"] and result.coverage.complete
    assert result.coverage.roots == [session.root.resolve().as_uri()]


async def test_mixed_prose_context_and_related_over_lsp(session: Session) -> None:  # noqa: F811
    result = await session.query(query="how does SessionStore reject expired sessions", expandRelated=True)
    assert result.mode == "behavior" and result.judge == "system-one:test"
    assert result.matches[0].source == "declaration" and result.matches[0].symbol == "SessionStore"
    assert result.coverage.searches == ["symbol", "behavior", "related"]
    assert result.coverage.identifiers == ["SessionStore"] and result.coverage.unresolvedImports == []
    assert {m.source for m in result.matches[1:]} <= {"judged", "related"}
    assert result.candidates[0].path == "auth/sessions.py"
    assert any(
        r.path == "auth/sessions.py" and "imported by tests/test_sessions.py" in r.reason for r in result.related
    )
    ranked = await session.query(query="get", context="invoice total")
    assert ranked.mode == "symbol" and ranked.matches[0].symbol == "SessionStore.get"  # context never widens


async def test_absence_over_lsp_says_what_was_searched(session: Session) -> None:  # noqa: F811
    result = await session.query(query="WalletLedger", mode="symbol")
    assert result.matches == [] and result.candidates == []
    cov = result.coverage
    assert cov.complete and cov.files == 8 and cov.symbols > 0 and cov.searches == ["symbol"]
    assert any("WalletLedger" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"query": "ok", "intent": "psychic"}, "intent"),
        ({"query": "ok", "intent": 3}, "intent"),
        ({"query": "ok", "context": ["a"]}, "context"),
        ({"query": "ok", "expandRelated": "yes"}, "expandRelated"),
    ],
)
async def test_bad_shape_params_are_invalid_params(session: Session, params: dict[str, object], field: str) -> None:  # noqa: F811
    with pytest.raises(JsonRpcInvalidParams, match=f"`{field}`"):
        await session.query(**params)
