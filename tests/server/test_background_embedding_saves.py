"""Background embedding saves the vectors it stored, and only then.

In-process on `Folders`: a pass that finds nothing to embed reports nothing a client could wait on, so over LSP
a test cannot tell whether the pass had ended before it looked; awaiting the pass's task can.
"""

from __future__ import annotations

from pathlib import Path

from smartsearch_ls.server.folders import Folders
from tests.conftest import SAMPLE_PROJECT, write_tree


async def embedded_to_the_end(root: Path, cache: Path) -> None:
    """A new `Folders` on `root`, until its background embedding has run to its end (its last save included); then
    everything is saved and the folder dropped, which stops its other background work (the symbol index), as a
    server's shutdown would."""
    folders = Folders(cache_dir=cache, semantic=True)
    folder = folders.add(root)
    await folders.build(folder)
    assert folder.embedding is not None, "the build started no background embedding"
    await folder.embedding
    await folders.persist_all()  # as a server's shutdown does: the next `Folders` starts warm
    folders.remove(root)


async def test_a_restart_with_every_snippet_embedded_leaves_the_saved_vectors_as_they_were(tmp_path: Path) -> None:
    """It saved the whole vectors file again: on a large root, a restart's first seconds spent rewriting every
    vector beside its first search."""
    root = write_tree(tmp_path / "project", SAMPLE_PROJECT)
    cache = tmp_path / "cache"
    await embedded_to_the_end(root, cache)
    (saved,) = (cache / "dense").iterdir()
    written = saved.stat().st_ino, saved.stat().st_mtime_ns
    await embedded_to_the_end(root, cache)
    assert (saved.stat().st_ino, saved.stat().st_mtime_ns) == written
    (root / "auth" / "tokens.py").write_text("def mint_token(user):\n    return f'token-{user}'\n")
    await embedded_to_the_end(root, cache)  # a new snippet's vector: saved
    assert saved.stat().st_ino != written[0]
