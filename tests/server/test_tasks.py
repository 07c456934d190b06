"""Background tasks the server lets go of are kept alive until they finish."""

from __future__ import annotations

import asyncio
import gc
import weakref

from smartsearch_ls.server.tasks import spawn


async def wait_forever() -> None:
    await asyncio.Event().wait()  # nothing but this coroutine references the event


async def test_a_spawned_task_waiting_on_what_only_it_holds_is_not_collected() -> None:
    plain = weakref.ref(asyncio.get_running_loop().create_task(wait_forever()))
    kept = weakref.ref(spawn(wait_forever()))
    await asyncio.sleep(0)
    gc.collect()
    assert plain() is None  # what the loop does with a task no one holds: collected mid-run
    task = kept()
    assert task is not None and not task.done()
    task.cancel()
    del task
    for _ in range(3):  # the cancellation, then the done callbacks, each take a turn of the loop
        await asyncio.sleep(0)
    gc.collect()
    assert kept() is None  # let go once it is done
