"""Gather the embeddings that concurrent judgments ask for into one ONNX run, off the event loop.

A search fans out several judgments at once and each needs a vector. One batch of eight costs far less than
eight runs of one, so a request waits a few milliseconds for company, then the whole batch (duplicates
removed) is embedded in a worker thread while the loop keeps serving. Requests that arrive while a batch runs
form the next one. Pending batches are kept per event loop, since a future belongs to the loop that made it.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable

import numpy as np

Embed = Callable[[list[str]], np.ndarray]
_Pending = list[tuple[str, "asyncio.Future[np.ndarray]"]]


class MicroBatcher:
    """Awaitable single-text embedding that runs as shared batches."""

    def __init__(self, embed: Embed, *, window: float = 0.004, max_batch: int = 64) -> None:
        self._embed = embed
        self._window = window
        self._max_batch = max_batch
        self._pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Pending] = weakref.WeakKeyDictionary()
        self._running: set[asyncio.Task[None]] = set()

    async def embed(self, text: str) -> np.ndarray:
        """The vector of `text`, computed in the next batch to run."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[np.ndarray] = loop.create_future()
        batch = self._pending.get(loop)
        if batch is None:
            batch = self._pending[loop] = []
            loop.call_later(self._window, self._flush, loop, batch)
        batch.append((text, future))
        if len(batch) >= self._max_batch:
            self._flush(loop, batch)
        return await future

    def _flush(self, loop: asyncio.AbstractEventLoop, batch: _Pending) -> None:
        if self._pending.get(loop) is not batch:
            return  # already flushed because it filled up
        del self._pending[loop]
        task = loop.create_task(self._run(batch))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _run(self, batch: _Pending) -> None:
        texts = list(dict.fromkeys(text for text, _ in batch))
        try:
            vectors = await asyncio.to_thread(self._embed, texts)
        except BaseException as error:  # every waiter gets the failure; none is left hanging
            for _, future in batch:
                if not future.done():
                    future.set_exception(error)
            if not isinstance(error, Exception):
                raise
            return
        row = {text: vectors[i] for i, text in enumerate(texts)}
        for text, future in batch:
            if not future.done():
                future.set_result(row[text])
