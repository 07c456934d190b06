"""The server as an editor meets it: time to first answer (cold and warm), edits to result, query latency, RSS.

`python -m bench.server --corpus click [--runs 5] [--searches 5] [--judge local]` (after `python -m bench prepare`);
`python -m bench speed` runs it next to the peer. Drives the real `smartsearch-ls` over stdio with pygls' own
client, which declares work-done progress and dynamic registration of watched files, as VS Code does. The judge is
Pydantic AI's `test` model, in-process and instant, at threshold 0 (every judged snippet is a match, as the peer's
runner has it): the figures are the server's own cost, one model request per snippet included, as the peer's are
with its in-process `FunctionModel`. `--judge local` measures the embedded judge instead, at its default threshold,
and in its first run also waits for background embedding to end and times later searches again (`embedded_search_*`:
every candidate's vector already there, the judge's warm path). Everything else is the server's default: its
embedding index (the hybrid shortlist) and the background embedding that starts once the index is ready.

Per run: a cold start (empty cache dir) to the `initialize` answer, to `index ready` and to the first answer.
In the first run also: later searches (the corpus's behavior queries), a search right after a file changed on
disk (written, then `workspace/didChangeWatchedFiles`; the query of an earlier search, as the peer's runner does,
then queries not searched before), an unsaved edit (`textDocument/didChange`) to a result that shows it, and
RSS. Then `runs` restarts on the persisted index to the first answer. Peak RSS is the server's `VmHWM`, read once
`shutdown` is answered (the saves at shutdown included).
Results go to `bench/out/server-<corpus>.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from bench.__main__ import BEHAVIOR_SET, resolve_root, save_figures
from bench.quality.metrics import load_cases

EMBEDDING_TIMEOUT = 3600.0
"""Seconds the embedded judge's run waits for background embedding to end (`large`: minutes)."""

READY_TIMEOUT = 900.0
"""Seconds a start may take to `index ready` before the bench gives up (the large corpus needs ~60)."""


class Client(LanguageClient):
    """Records log messages so the bench can wait for `index ready`, and the end of background embedding;
    accepts progress and registrations."""

    def __init__(self) -> None:
        super().__init__("smartsearch-bench", "1")
        self.logs: list[str] = []
        self.embedding: set[str | int] = set()
        """Progress tokens of background embedding under way."""
        self.embedded = asyncio.Event()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log(params: types.LogMessageParams) -> None:
            self.logs.append(params.message)

        @self.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
        def create(params: types.WorkDoneProgressCreateParams) -> None:
            return None

        @self.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value if isinstance(params.value, dict) else {}
            if value.get("kind") == "begin" and str(value.get("title", "")).startswith("Embedding "):
                self.embedding.add(params.token)
            elif value.get("kind") == "end" and params.token in self.embedding:
                self.embedding.discard(params.token)
                self.embedded.set()

        @self.feature(types.CLIENT_REGISTER_CAPABILITY)
        def register(params: types.RegistrationParams) -> None:
            return None


def corpus_queries(corpus: str) -> list[str]:
    """The behavior set's queries of this corpus (all of them for a corpus the set does not cover)."""
    cases = load_cases(BEHAVIOR_SET)
    own = [c.query for c in cases if c.corpus == corpus]
    return own or [c.query for c in cases]


INSTANT = "test"
"""Pydantic AI's own stand-in model: answers at once, in the server's process."""


def judge_options(judge: str) -> dict[str, Any]:
    """The initialization options of a run with this judge: an instant stand-in passes everything it judges."""
    return {"judge": {"model": judge}, "concurrency": 8, **({"threshold": 0.0} if judge == INSTANT else {})}


async def start(root: Path, env: dict[str, str], judge: str = INSTANT) -> tuple[Client, float, float]:
    """Start a server on `root` with `judge`; returns the client, seconds until `initialize` was answered, and
    until its index was ready."""
    client = Client()
    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "smartsearch_ls", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True),
                workspace=types.WorkspaceClientCapabilities(
                    did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)
                ),
            ),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options=judge_options(judge),
        )
    )
    answered = time.perf_counter() - started
    client.initialized(types.InitializedParams())
    while not any("index ready" in m for m in client.logs):
        if time.perf_counter() - started > READY_TIMEOUT:
            raise TimeoutError(f"no `index ready` within {READY_TIMEOUT} s; logs: {client.logs[-5:]}")
        await asyncio.sleep(0.01)
    return client, answered, time.perf_counter() - started


async def query(client: Client, text: str) -> tuple[Any, float]:
    started = time.perf_counter()
    result = await client.protocol.send_request_async("smartSearch/query", {"query": text})
    return result, time.perf_counter() - started


def status_mb(pid: int, key: str) -> float:
    """`VmRSS` (now) or `VmHWM` (peak) of a process, in MB (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def server_pid(client: Client) -> int:
    return client._server.pid  # type: ignore[union-attr]


async def stop(client: Client) -> float:
    """Shut the server down; kill it if it has not exited 10 s after `exit`. Returns its peak RSS (MB), read once
    `shutdown` is answered: what the session and its saves at shutdown took.

    It may not exit at once: `exit` waits for a background embedding batch in flight, which can take longer on a
    busy machine.
    """
    process = client._server  # type: ignore[union-attr]
    try:
        await asyncio.wait_for(client.shutdown_async(None), 30)
    except TimeoutError:
        log("no answer to `shutdown` within 30 s")
    peak = status_mb(process.pid, "VmHWM")
    client.exit(None)
    deadline = time.monotonic() + 10
    while process.returncode is None and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if process.returncode is None:
        log("server did not exit within 10 s of `exit`: killed")
        process.kill()
    try:
        await asyncio.wait_for(client.stop(), 10)
    except TimeoutError:
        log("the client did not stop within 10 s")
        process._transport.close()  # else asyncio closes it after the loop is gone, with a warning
    return peak


def log(message: str) -> None:
    print(f"[server] {message}", file=sys.stderr, flush=True)


def edit_target(root: Path) -> Path:
    """A mid-sized Python file (else TypeScript) to edit: the median by size of those over 2 KB."""
    for pattern in ("*.py", "*.ts"):
        files = sorted((p.stat().st_size, p) for p in root.rglob(pattern) if p.stat().st_size > 2000)
        if files:
            return files[len(files) // 2][1]
    raise FileNotFoundError(f"no Python or TypeScript file over 2 KB under {root}")


def language(path: Path) -> str:
    return "typescript" if path.suffix == ".ts" else "python"


def declaration(path: Path, name: str) -> str:
    """A new function named `name`, in the file's language, to append to it."""
    if path.suffix == ".ts":
        return f"\n\nexport function {name}(): void {{}}\n"
    return f"\n\ndef {name}():\n    pass\n"


def p50_ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 1)


async def searches_once_embedded(client: Client, texts: list[str], searches: int) -> dict[str, Any]:
    """Later searches once background embedding has ended, with queries the session has not searched: what a
    search costs when every candidate's vector is already there (the embedded judge's warm path)."""
    started = time.perf_counter()
    await asyncio.wait_for(client.embedded.wait(), EMBEDDING_TIMEOUT)
    waited = time.perf_counter() - started
    later = [(await query(client, text))[1] for text in texts[-searches:]]
    log(f"once embedded ({waited:.0f} s of waiting): {[round(t, 4) for t in later]}")
    rounded = [round(t, 4) for t in later]
    return {"embedding_wait_s": round(waited, 1), "embedded_search_s": rounded, "embedded_search_p50_ms": p50_ms(later)}


async def session_details(client: Client, root: Path, texts: list[str], searches: int) -> dict[str, Any]:
    """Later searches, a search after a change on disk, and an unsaved edit to its result, in one session."""
    figures: dict[str, Any] = {}
    later = [(await query(client, text))[1] for text in texts[1 : searches + 1]]
    figures["later_search_s"] = [round(t, 4) for t in later]
    figures["later_search_p50_ms"] = p50_ms(later)
    log(f"later searches: {figures['later_search_s']}")
    repeat = [(await query(client, text))[1] for text in texts[1 : searches + 1]]
    figures["repeated_search_p50_ms"] = p50_ms(repeat)

    target = edit_target(root)
    uri, original = target.as_uri(), target.read_text()
    figures["edit_file"] = target.relative_to(root).as_posix()
    after_edit = []
    try:
        for n, text in enumerate(texts[1 : searches + 1]):
            name = f"zebra_quartz_disk_{n}"
            target.write_text(original + declaration(target, name))
            started = time.perf_counter()
            client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
            )
            await client.protocol.send_request_async("smartSearch/query", {"query": text})
            after_edit.append(time.perf_counter() - started)
            found = await client.protocol.send_request_async("smartSearch/query", {"query": name})
            assert found.matches and found.matches[0].symbol == name, found
    finally:
        target.write_text(original)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
        )
    figures["after_disk_edit_s"] = [round(t, 4) for t in after_edit]
    # The same again with queries this session has not searched: nothing judged before can be re-used.
    fresh = texts[searches + 1 : 2 * searches + 1]
    after_edit_fresh = []
    try:
        for n, text in enumerate(fresh):
            target.write_text(original + declaration(target, f"zebra_quartz_fresh_{n}"))
            started = time.perf_counter()
            client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
            )
            await client.protocol.send_request_async("smartSearch/query", {"query": text})
            after_edit_fresh.append(time.perf_counter() - started)
    finally:
        target.write_text(original)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)])
        )
    if after_edit_fresh:
        figures["after_disk_edit_new_query_s"] = [round(t, 4) for t in after_edit_fresh]
        figures["after_disk_edit_new_query_p50_ms"] = p50_ms(after_edit_fresh)
    figures["after_disk_edit_p50_ms"] = p50_ms(after_edit)
    log(f"searches after a change on disk: {figures['after_disk_edit_s']}")

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri, language(target), 1, original))
    )
    edit_to_result = []
    for version in range(2, 2 + max(searches, 5)):
        name = f"zebra_quartz_{version}"
        started = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangeWholeDocument(text=original + declaration(target, name))
                ],
            )
        )
        result = await client.protocol.send_request_async("smartSearch/query", {"query": name})
        assert result.matches and result.matches[0].symbol == name, result
        edit_to_result.append(time.perf_counter() - started)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    figures["did_change_to_result_p50_ms"] = p50_ms(edit_to_result)
    return figures


async def measure(
    root: Path, texts: list[str], *, runs: int = 5, searches: int = 5, judge: str = INSTANT
) -> dict[str, Any]:
    caches: list[Path] = []
    figures: dict[str, Any] = {"corpus": root.name, "runs": runs, "searches": searches, "judge": judge}
    try:
        cold_ready, cold_first, peaks, answered = [], [], [], []
        for run in range(runs):
            cache = Path(tempfile.mkdtemp(prefix="smartsearch-bench-"))
            caches.append(cache)
            env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
            client, initialize, ready = await start(root, env, judge)
            _, first = await query(client, texts[0])
            answered.append(initialize)
            cold_ready.append(ready)
            cold_first.append(ready + first)
            log(f"{root.name} cold start {run + 1}/{runs}: index ready {ready:.2f}s, first answer {ready + first:.2f}s")
            if run == 0:
                figures["rss_after_first_answer_mb"] = status_mb(server_pid(client), "VmRSS")
                figures.update(await session_details(client, root, texts, searches))
                if judge != INSTANT:  # a judge of its own cost: also its warm path, every vector there
                    figures.update(await searches_once_embedded(client, texts, searches))
                figures["rss_after_session_mb"] = status_mb(server_pid(client), "VmRSS")
            peaks.append(await stop(client))
        figures["cold_to_index_ready_s"] = [round(t, 3) for t in cold_ready]
        figures["cold_to_first_answer_s"] = [round(t, 3) for t in cold_first]

        warm_ready, warm_first = [], []
        env = {**os.environ, "XDG_CACHE_HOME": str(caches[0])}
        for _ in range(runs):
            client, initialize, ready = await start(root, env, judge)
            _, first = await query(client, texts[0])
            answered.append(initialize)
            warm_ready.append(ready)
            warm_first.append(ready + first)
            log(f"{root.name} restart: index ready {ready:.2f}s, first answer {ready + first:.2f}s")
            peaks.append(await stop(client))
        figures["restart_to_index_ready_s"] = [round(t, 3) for t in warm_ready]
        figures["restart_to_first_answer_s"] = [round(t, 3) for t in warm_first]
        figures["peak_rss_mb"] = max(peaks)
        figures["start_to_initialize_answer_s"] = [round(t, 3) for t in answered]
        for key in (
            "start_to_initialize_answer_s",
            "cold_to_index_ready_s",
            "cold_to_first_answer_s",
            "restart_to_index_ready_s",
            "restart_to_first_answer_s",
        ):
            figures[f"median_{key}"] = round(statistics.median(figures[key]), 3)
    finally:
        for cache in caches:
            shutil.rmtree(cache, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default="click")
    parser.add_argument("--runs", type=int, default=5, help="cold starts and restarts (medians over these)")
    parser.add_argument("--searches", type=int, default=5, help="later searches, and searches after an edit")
    parser.add_argument("--judge", default=INSTANT, help=f"the judge model (default `{INSTANT}`; e.g. `local`)")
    args = parser.parse_args()
    root = resolve_root(args.corpus)
    queries = corpus_queries(args.corpus)
    figures = asyncio.run(measure(root, queries, runs=args.runs, searches=args.searches, judge=args.judge))
    save_figures(f"server-{args.corpus}" if args.judge == INSTANT else f"server-{args.corpus}-{args.judge}", figures)


if __name__ == "__main__":
    main()
