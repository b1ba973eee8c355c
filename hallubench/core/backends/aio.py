"""The asyncio plumbing shared by every client: run a coroutine from synchronous code, gather single
requests into batches for backends that are fastest in bulk (local models, classifiers), and run the
CPU-bound Python steps of judging chains in one lane."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_CPU_LANE: ThreadPoolExecutor


def _new_cpu_lane() -> None:
    global _CPU_LANE
    _CPU_LANE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cpu-lane")


_new_cpu_lane()
os.register_at_fork(after_in_child=_new_cpu_lane)  # a forked child has none of its parent's threads


async def in_cpu_lane(function: Callable[..., R], *args: Any) -> R:
    """``function(*args)`` off the event loop, in the process's one thread for CPU-bound Python steps of
    judging chains (evidence retrieval, cutting pages into passages); steps of concurrent items queue there.
    Under the interpreter lock more threads cannot run such steps any faster: they only take turns with the
    threads that wait on model calls and stretch every call (docs/benchmarks.md, LongWiki judging throughput)."""
    return await asyncio.get_running_loop().run_in_executor(_CPU_LANE, functools.partial(function, *args))


def run_sync(coroutine: Awaitable[T]) -> T:
    """Run ``coroutine`` to completion from synchronous code (in a helper thread when an event loop
    is already running in this one, e.g. inside a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)  # type: ignore[arg-type]
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)  # type: ignore[arg-type]
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


NEXT_BATCH: Any = object()
"""A result ``run_batch`` may give for an item to send it again with the next batch (a Batch API line that failed
or that an expired batch left unfinished: the next wave)."""


class MicroBatcher(Generic[T, R]):
    """Collects single submissions and runs them through ``run_batch`` in bulk, one batch at a time,
    in a worker thread. While a batch runs, new submissions queue up for the next one, so a
    pipeline's items that reach the same step at about the same time share a batch (no barrier:
    nothing waits for items that are still at an earlier step).

    ``quiet``: a batch also waits until no submission has come for that many seconds (at most ``max_batch`` items
    gathered), so that every chain that can reach its next call joins the batch: the waves of a Batch API judge,
    where each batch costs minutes to hours. An item whose result is ``NEXT_BATCH`` joins the next batch."""

    def __init__(self, run_batch: Callable[[Sequence[T]], Sequence[R]], max_batch: int = 256, linger: float = 0.005,
                 quiet: float = 0.0):
        self.run_batch = run_batch
        self.max_batch = max_batch
        self.linger = linger
        self.quiet = quiet
        self._pending: list[tuple[T, asyncio.Future]] = []
        self._last_submit = 0.0
        self._worker: asyncio.Task | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="batch")

    async def submit(self, item: T) -> R:
        loop = asyncio.get_running_loop()
        future: asyncio.Future = loop.create_future()
        self._pending.append((item, future))
        self._last_submit = loop.time()
        if self._worker is None or self._worker.done() or self._worker.get_loop() is not loop:
            self._worker = loop.create_task(self._drain())
        return await future

    async def _gathered(self) -> None:
        """Until ``quiet`` seconds have passed since the last submission, or a full batch is waiting."""
        loop = asyncio.get_running_loop()
        while len(self._pending) < self.max_batch:
            left = self._last_submit + self.quiet - loop.time()
            if left <= 0:
                return
            await asyncio.sleep(left)

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(self.linger)  # let the items released by the same event gather
        while self._pending:
            await self._gathered()
            batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
            try:
                results = await loop.run_in_executor(self._executor, self.run_batch, [item for item, _ in batch])
            except BaseException as exc:  # the batch's callers see the error; later batches still run
                for _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                if isinstance(exc, (KeyboardInterrupt, asyncio.CancelledError)):
                    raise
                continue
            for (item, future), result in zip(batch, results):
                if result is NEXT_BATCH:
                    self._pending.append((item, future))
                    self._last_submit = loop.time()
                elif not future.done():
                    future.set_result(result)
            await asyncio.sleep(0)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
