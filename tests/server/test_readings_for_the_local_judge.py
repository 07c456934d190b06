"""What the index embeds of a snippet besides its code (its commentary, its passages) only the `local` judge reads, so
the server embeds it only while that judge is the configured one.

For any other judge those readings were most of background embedding's CPU and of its vectors' memory, read by
nothing. The real server over stdio; what it embedded is read back from the vectors file it saved.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from smartsearch_ls.index.dense import DenseIndex, StoredVectors
from smartsearch_ls.index.root_index import RootIndex
from tests.support.faults import poll
from tests.support.model_servers import ModelServer
from tests.support.sessions import Session, start_session


def embedding_ends(session: Session) -> int:
    """How many background embedding passes have ended."""
    reports = [r for values in session.client.progress_reports.values() for r in values]
    return sum(1 for r in reports if r.kind == "end" and "snippets embedded" in (r.message or ""))


def saved_vectors(root: Path, cache: Path) -> StoredVectors:
    stored = DenseIndex(RootIndex(root.resolve(), cache_dir=cache / "smartsearch-ls")).read_persisted()
    assert stored is not None, "no vectors were saved"
    return stored


async def test_a_model_judge_gets_no_readings_embedded_and_a_change_to_local_embeds_them(
    workspace: Path, model_server: ModelServer, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    session = await start_session(workspace, model_server, cache, settings={"semantic": True})
    try:
        await poll(lambda: embedding_ends(session) == 1, timeout=60, what="background embedding's end")
        stored = saved_vectors(workspace, cache)
        assert stored.code.held(), "the snippets' own vectors were not embedded"
        assert stored.read.held() == [] and not any(stored.nothing.values())  # nothing read of them for this judge

        session.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings={"smartSearch": {"judge": {"model": "local"}}})
        )
        await poll(lambda: embedding_ends(session) == 2, timeout=60, what="the readings' embedding's end")
        stored = saved_vectors(workspace, cache)
        assert stored.read.held(), "the local judge's readings were not embedded"
        assert all(key.endswith((":commentary", ":passages")) for key in stored.read.held())
    finally:
        await session.client.shutdown_session()
        await session.client.stop()
