"""Resource bounds: the server's memory on a large generated tree, the judgment cache, the log file.

The CI tree has 20,000 files (`bench/soak.py --tree-files 100000` measures the 100k figure). Memory is read
from /proc/<pid>/status of the real server process (VmRSS now, VmHWM the peak).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from smartsearch_ls.chunking.snippet import Snippet
from smartsearch_ls.judge.cache import JudgmentCache
from smartsearch_ls.server import main as server_main
from tests.support.faults import FaultServer, generate_tree, launch, poll

TREE_FILES = int(os.environ.get("SMARTSEARCH_FAULT_TREE_FILES", "20000"))
RSS_LIMIT_MB = 500
"""Measured: 222 MB resident, 229 MB peak after indexing 20,000 small files and two searches; a leak per file or an
unbounded structure would pass this quickly."""


async def test_memory_stays_bounded_on_a_large_tree(fault_judge: FaultServer, tmp_path: Path) -> None:
    root = tmp_path / "big"
    generate_tree(root, TREE_FILES)
    server = await launch(root, fault_judge, tmp_path / "cache", settings={"semantic": False})
    try:
        message = await server.wait_for_log("index ready", timeout=240)
        assert f"{TREE_FILES} files" in message
        result = await server.query(query="handler_12345")
        assert result.matches and result.matches[0].symbol == "handler_12345"
        searched = await server.query(query="handle request kind reply", mode="behavior", candidates=16)
        assert searched.coverage.files == TREE_FILES and searched.coverage.judged == 16
        status = server.status()
        print(
            f"\n{TREE_FILES} files: RSS {status.rss_kb / 1024:.0f} MB after indexing and two searches, "
            f"peak {status.peak_rss_kb / 1024:.0f} MB, {status.threads} threads"
        )
        assert status.peak_rss_kb < RSS_LIMIT_MB * 1024
    finally:
        await server.stop()


def test_the_judgment_cache_is_bounded_and_keeps_the_recent() -> None:
    cache = JudgmentCache(capacity=100)
    keys = [cache.key("judge", "query", Snippet(f"f{i}.py", 1, 2, f"text {i}")) for i in range(1_000)]
    for i, key in enumerate(keys):
        cache.put(key, i / 1_000)
        if i == 50:
            assert cache.get(keys[0]) == 0.0  # touched: now the most recent
    assert len(cache) == 100
    assert cache.get(keys[-1]) == pytest.approx(0.999) and cache.get(keys[900]) == pytest.approx(0.9)
    assert cache.get(keys[0]) is None and cache.get(keys[899]) is None


def test_the_log_file_rotates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--log-file` uses a RotatingFileHandler: at the size cap the file rolls over, with a bounded number of
    backups, so a server running for weeks cannot fill the disk. The cap is shrunk to make it roll quickly."""
    monkeypatch.setattr(server_main, "LOG_FILE_BYTES", 10_000)
    log_file = tmp_path / "server.log"
    saved = logging.root.handlers[:], logging.root.level
    try:
        server_main.configure_logging("INFO", str(log_file))
        logger = logging.getLogger("smartsearch_ls.fault")
        for n in range(2_000):
            logger.info("line %d of a long-running server's log, padded to a realistic length", n)
        for handler in logging.root.handlers:
            handler.flush()
    finally:
        for handler in logging.root.handlers:
            handler.close()
        logging.root.handlers[:], level = saved
        logging.root.setLevel(level)
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["server.log", *(f"server.log.{i}" for i in range(1, server_main.LOG_FILE_BACKUPS + 1))]
    assert all((tmp_path / name).stat().st_size <= 10_000 for name in files)
    assert "line 1999 " in log_file.read_text()  # the newest lines are in the current file


async def test_the_real_server_logs_to_the_file_not_to_stdout(fault_judge: FaultServer, tmp_path: Path) -> None:
    root = tmp_path / "project"
    generate_tree(root, 10)
    log_file = tmp_path / "logs" / "smartsearch.log"
    log_file.parent.mkdir()
    server = await launch(
        root, fault_judge, tmp_path / "cache", settings={"semantic": False}, args=("--log-file", str(log_file))
    )
    try:
        await server.wait_for_log("index ready")
        await poll(lambda: log_file.exists() and "index ready" in log_file.read_text(), 10, "the log file filling")
        with pytest.raises(JsonRpcInvalidParams):
            await server.query(query="x", limit=0)
        await poll(lambda: "-32602" in log_file.read_text(), 10, "the refused request in the log")
        logged = log_file.read_text()
        assert "Traceback" not in logged  # a refused request is an answer, not a server fault
        assert "answered with error -32602: Invalid `limit`" in logged
    finally:
        await server.stop()
