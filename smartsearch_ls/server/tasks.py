"""Background tasks the server starts and does not await, kept alive until they finish.

The event loop holds a task only weakly: one that is waiting on something only it references (an event, a
lock, another task) can be garbage-collected mid-run, and its work silently never happens. Every task the
server starts and lets go of (indexing a folder, warming the model, announcing progress, persisting) is
started with `spawn`, which keeps a strong reference until the task is done.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

_running: set[asyncio.Task[Any]] = set()


def spawn(work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
    """Start `work` on the running loop and keep it referenced until it is done."""
    task = asyncio.get_running_loop().create_task(work)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return task
