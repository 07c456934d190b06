"""A model judge's imports (Pydantic AI) no longer come before indexing: a cold build starts without
them, and a search that arrives before they end waits for them rather than failing or judging without them.

The real server over stdio, its import of Pydantic AI held back by a `sitecustomize` on its import path until the
test lets it go: a server that imported before indexing would never say `index ready` while it is held.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from tests.conftest import write_tree
from tests.support.model_servers import ModelServer
from tests.support.sessions import start_session

GATE = '''
"""Holds the first import of `pydantic_ai` until the file named by SMARTSEARCH_TEST_IMPORT_GATE exists."""
import os
import sys
import time


class _Gate:
    def find_spec(self, name, path=None, target=None):
        if name == "pydantic_ai":
            while not os.path.exists(os.environ["SMARTSEARCH_TEST_IMPORT_GATE"]):
                time.sleep(0.02)
        return None  # the ordinary finders import it


sys.meta_path.insert(0, _Gate())
'''


async def test_a_cold_build_does_not_wait_for_the_judges_imports(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    gate = write_tree(tmp_path / "gate", {"sitecustomize.py": GATE})
    opened = tmp_path / "opened"
    path = os.pathsep.join(filter(None, (str(gate), os.environ.get("PYTHONPATH"))))
    session = await start_session(
        workspace,
        model_server,
        tmp_path / "cache",
        env={"PYTHONPATH": path, "SMARTSEARCH_TEST_IMPORT_GATE": str(opened)},
    )
    try:
        await session.wait_for_log("index ready", timeout=30)
        search = asyncio.ensure_future(session.query(query="reject expired sessions"))
        await asyncio.sleep(0.5)
        assert not search.done(), "answered while its judge could not be imported"
        opened.touch()
        result = await asyncio.wait_for(search, 60)
        assert result.judge == "system-one:test" and result.matches[0].path == "auth/sessions.py"
        assert result.coverage.judged == result.coverage.shortlisted > 0
    finally:
        opened.touch()  # a failed assertion must not leave the server's import thread waiting at shutdown
        await session.client.shutdown_session()
        await session.client.stop()
