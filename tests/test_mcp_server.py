"""`smartsearch mcp`: the real process over stdio, driven by the MCP SDK's own client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.conftest import SAMPLE_PROJECT, write_tree
from tests.support.model_servers import ModelServer
from tests.support.sessions import SHARED_XDG_CACHE

CALL_TIMEOUT = 120.0
"""Seconds a tool call may take: the first behavior search loads the embedded model."""


def smartsearch() -> list[str]:
    """The installed console script, as an agent's configuration names it."""
    script = shutil.which("smartsearch", path=str(Path(sys.executable).parent))
    return [script] if script else [sys.executable, "-c", "from smartsearch_ls.cli import main; main()"]


@asynccontextmanager
async def mcp_session(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """`smartsearch mcp ARGS` started by the SDK's stdio client, initialized; its stderr goes to a file."""
    command, *first = smartsearch()
    server = StdioServerParameters(
        command=command,
        args=[*first, "mcp", "--cache-dir", str(tmp_path / "cache"), *args],
        # Nothing of the test's lands in the user's ~/.cache. The SDK passes on only a few variables of its own
        # environment: the import path goes too, so the server runs the code under test (a worktree's, say).
        env={"XDG_CACHE_HOME": str(SHARED_XDG_CACHE), **_import_path(), **(env or {})},
    )
    with (tmp_path / "mcp-stderr.log").open("w") as errlog:
        async with (
            stdio_client(server, errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=CALL_TIMEOUT) as session,
        ):
            await session.initialize()
            yield session


def _import_path() -> dict[str, str]:
    return {name: os.environ[name] for name in ("PYTHONPATH", "PYTHONSAFEPATH") if name in os.environ}


async def search(session: ClientSession, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool("smart_search", arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    (text,) = result.content
    assert json.loads(getattr(text, "text", "")) == result.structured_content  # for clients that read text only
    return result.structured_content


async def tool_error(session: ClientSession, **arguments: Any) -> str:
    result = await session.call_tool("smart_search", arguments)
    assert result.is_error and result.structured_content is None
    (text,) = result.content
    return getattr(text, "text", "")


def cli_error(*args: str, cache: Path, env: dict[str, str] | None = None) -> str:
    """What `smartsearch query ARGS` prints on stderr for an error, without its `smartsearch: ` prefix."""
    command = [*smartsearch(), "query", *args, "--cache-dir", str(cache)]
    environment = {**os.environ, "XDG_CACHE_HOME": str(SHARED_XDG_CACHE), **(env or {})}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    return done.stderr.strip().removeprefix("smartsearch: ")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "project", SAMPLE_PROJECT)


async def test_one_tool_whose_schema_names_the_params_and_a_symbol_search_sees_edits(
    project: Path, tmp_path: Path
) -> None:
    async with mcp_session(tmp_path) as session:
        (tool,) = (await session.list_tools()).tools
        assert tool.name == "smart_search" and tool.description and "coverage" in tool.description
        schema = tool.input_schema
        assert schema["type"] == "object" and set(schema["required"]) == {"query", "directory"}
        assert set(schema["properties"]) == {
            "query",
            "directory",
            "glob",
            "limit",
            "candidates",
            "mode",
            "intent",
            "context",
            "expandRelated",
        }
        assert schema["properties"]["mode"]["enum"] == ["auto", "behavior", "symbol", "path"]
        assert tool.annotations is not None and tool.annotations.read_only_hint

        result = await search(session, query="SessionStore", directory=str(project), mode="symbol")
        match = result["matches"][0]
        assert (match["path"], match["symbol"], match["start_line"]) == ("auth/sessions.py", "SessionStore", 6)
        assert match["relevance"] == 1.0 and match["excerpt"].startswith("class SessionStore:")
        assert result["mode"] == "symbol" and result["judge"] is None
        assert set(result["coverage"]) >= {"files", "skippedFiles", "snippets", "shortlisted", "judged", "complete"}
        assert list((tmp_path / "cache" / "index").iterdir())  # the CLI's and the server's cache, persisted

        # The folder stays open between calls and is brought up to date with the disk before each one.
        (project / "auth" / "tokens.py").write_text("class TokenRevoker:\n    pass\n")
        (project / "billing" / "invoice.py").unlink()
        files = result["coverage"]["files"]
        result = await search(session, query="TokenRevoker", directory=project.as_uri(), mode="symbol")
        assert [(m["path"], m["start_line"], m["end_line"]) for m in result["matches"]] == [("auth/tokens.py", 1, 2)]
        assert result["coverage"]["files"] == files  # one file more, one file less
        gone = await search(session, query="format_invoice", directory=str(project), mode="symbol", limit=3)
        assert all(m["path"] != "billing/invoice.py" for m in gone["matches"])


async def test_a_behavior_search_with_the_embedded_judge(project: Path, tmp_path: Path) -> None:
    async with mcp_session(tmp_path) as session:
        result = await search(session, query="read the JSON configuration file", directory=str(project), limit=3)
    assert result["mode"] == "behavior" and result["judge"] == "local"
    match = result["matches"][0]
    assert (match["path"], match["symbol"]) == ("config/loader.py", "parse_config_file")
    assert (match["start_line"], match["end_line"]) == (4, 7) and 0.5 <= match["relevance"] <= 1
    assert "json.load(handle)" in match["excerpt"]
    assert len(result["matches"]) <= 3
    coverage = result["coverage"]
    assert coverage["judged"] == coverage["snippets"] > 0 and coverage["skippedFiles"] == 3
    # Nothing ignored, hidden or secret is read: not `.env`'s key, not the gitignored build/.
    text = json.dumps(result)
    assert "sk-live-secret-value" not in text and "build/generated.py" not in text
    assert list((tmp_path / "cache" / "dense").iterdir())  # the vectors it computed, kept for the next process


async def test_errors_are_tool_errors_with_the_command_lines_messages(
    project: Path, tmp_path: Path, model_server: ModelServer
) -> None:
    failing = {"SYSTEM_ONE_BASE_URL": f"{model_server.base_url}/v1"}
    async with mcp_session(tmp_path, "--judge", "system-one:fail-500", env=failing) as session:
        bad_limit = await tool_error(session, query="parse config", directory=str(project), limit=0)
        assert bad_limit == cli_error("parse config", "--root", str(project), "--limit", "0", cache=tmp_path)
        assert bad_limit.startswith("Invalid `limit`:")
        assert await tool_error(session, query="x", directory=str(project), mode="fuzzy") == (
            "Invalid `mode`: Input should be 'auto', 'behavior', 'symbol' or 'path'"
        )
        assert await tool_error(session, query="x", directory=str(project), limit="ten") == (
            "Invalid `limit`: Input should be a valid integer"
        )
        assert await tool_error(session, query="parse config") == "Invalid `directory`: Field required"
        assert await tool_error(session, directory=str(project)) == "Invalid `query`: Field required"
        missing = await tool_error(session, query="parse config", directory=str(project / "nope"))
        assert missing == f"`directory` {str(project / 'nope')!r} is not a directory."

        judge_failed = await tool_error(session, query="parse config", directory=str(project))
        assert "system-one:fail-500" in judge_failed and "Traceback" not in judge_failed
        judge_args = ("parse config", "--root", str(project), "--judge", "system-one:fail-500")
        assert judge_failed == cli_error(*judge_args, cache=tmp_path / "cli", env=failing)
        # The session outlives every error: a symbol search needs no judge.
        found = await search(session, query="parse_config_file", directory=str(project), mode="symbol")
        assert found["matches"][0]["symbol"] == "parse_config_file"
    assert "Traceback" not in (tmp_path / "mcp-stderr.log").read_text()


SECRETS = {
    "payments/settings.py": '''"""Settings of the payment client."""

SECRET_KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
TIMEOUT = 30
''',
    "web/app.js": """import { render } from "https://deploy:hunter2pass@cdn.example.com/lib.js";

export function drawPage(page) {
  return render(page);
}
""",
}


async def test_excerpts_returned_to_an_agent_are_redacted_where_the_command_lines_are_not(tmp_path: Path) -> None:
    """An agent forwards what it is returned to its model, so a secret in an excerpt would leave the machine."""
    project = write_tree(tmp_path / "project", SECRETS)
    async with mcp_session(tmp_path) as session:
        result = await search(session, query="SECRET_KEY", directory=str(project), mode="symbol")
        imported = await search(session, query="render", directory=str(project), expandRelated=True)
    (unresolved,) = imported["coverage"]["unresolvedImports"]
    assert unresolved["specifier"] == "https://deploy:[REDACTED:password]@cdn.example.com/lib.js"
    assert any("(password) in 1 excerpt or import of this result" in w for w in imported["warnings"])
    (match, *_) = result["matches"]
    assert (match["path"], match["symbol"]) == ("payments/settings.py", "SECRET_KEY")
    assert match["excerpt"].startswith('SECRET_KEY = "[REDACTED:openai-key]"')
    assert "sk-proj-" not in json.dumps(result)
    assert any(
        w.startswith("Redacted 1 value of a known secret shape (openai-key) in 1 excerpt or import of this result")
        for w in result["warnings"]
    )
    # The command line's output stays on the machine: its excerpt keeps the text as written.
    command = [*smartsearch(), "query", "SECRET_KEY", "--root", str(project), "--mode", "symbol", "--json"]
    command += ["--cache-dir", str(tmp_path / "cache")]
    environment = {**os.environ, "XDG_CACHE_HOME": str(SHARED_XDG_CACHE)}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, timeout=120, check=True)
    assert json.loads(done.stdout)["matches"][0]["excerpt"].startswith('SECRET_KEY = "sk-proj-abcdefghij')


async def test_the_closest_candidate_of_an_empty_answer_is_redacted_as_matches_are(tmp_path: Path) -> None:
    """With no match the result carries the closest candidate whole, excerpt included: it leaves the machine too."""
    project = write_tree(tmp_path / "project", SECRETS)
    async with mcp_session(tmp_path, "--threshold", "1") as session:
        query = "the secret key of the payment client settings"
        result = await search(session, query=query, directory=str(project / "payments"))
    assert result["matches"] == [] and result["closest"]["path"] == "settings.py"
    assert "[REDACTED:openai-key]" in result["closest"]["excerpt"] and "sk-proj-" not in json.dumps(result)


async def test_an_unexpected_failure_reaches_the_agent_with_its_secrets_redacted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine bug's message may quote the line it failed on; the agent's model is mostly hosted. In-process: no
    request makes the real server fail unexpectedly, which is the point of the rest of this file."""
    from smartsearch_ls.folder_search import settings_from
    from smartsearch_ls.mcp_server import SmartSearchTool

    tool = SmartSearchTool(settings_from({"cacheDir": str(tmp_path / "cache")}))

    async def crash(arguments: dict[str, Any]) -> None:
        raise RuntimeError('cannot read line 3: password = "hunter2hunter2"')

    monkeypatch.setattr(tool, "_search", crash)
    answer = await tool.call({"query": "anything", "directory": str(tmp_path)})
    (text,) = [c.text for c in answer.content]
    assert answer.is_error and "RuntimeError" in text and "cannot read line 3" in text
    assert "hunter2hunter2" not in text and "[REDACTED:" in text
