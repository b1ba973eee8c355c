"""A cached, counted front for any backend, with one async entry point (``acomplete``) that every
caller goes through: generators in bulk (``complete``), judging pipelines one request at a time.

Per-request backends (HTTP) run each call in a thread pool bounded by the backend's concurrency;
bulk backends (local models) get single requests gathered into batches by a ``MicroBatcher``.
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

from tqdm.auto import tqdm

from hallubench.core.backends.aio import MicroBatcher, run_sync
from hallubench.core.backends.base import Backend, ChatRequest, Completion
from hallubench.core.backends.budget import Budget
from hallubench.core.backends.cache import CallCache
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import redact_known

CALL_ROLE: contextvars.ContextVar[str | None] = contextvars.ContextVar("hallubench_call_role", default=None)
"""The judge role a call is made for (set around a judge's ``ask`` by ``hallu_metrics.judges.accounting.RoleJudge``);
calls made outside any role count under ``None``."""


@dataclass
class CallStats:
    """Counters for one client. ``calls``: calls sent (``failed`` of them failed); ``cached``: answered from the
    cache (or by an identical call in flight). Tokens: ``prompt_tokens`` / ``completion_tokens`` of the calls sent
    (``prefix_cached_tokens``: prompt tokens the server served from its own prefix cache, where it says so);
    ``reused_*``: what the calls answered from the cache cost when they were made (not spent again);
    ``usage_unknown``: calls, sent or reused, whose usage is unknown (a server that reports none, a cache entry
    written before usage was recorded). ``call_seconds``: the calls' durations added up (they overlap)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prefix_cached_tokens: int = 0
    reused_prompt_tokens: int = 0
    reused_completion_tokens: int = 0
    usage_unknown: int = 0
    call_seconds: float = 0.0

    def summary(self, name: str) -> str:
        return (f"[hallubench] {name}: {self.calls} calls made, {self.cached} cached, {self.failed} failed; "
                f"{token_line(self)}")

    def add(self, completion: Completion) -> None:
        """Count one finished call (``completion.cached``: answered without a new call)."""
        usage = completion.usage
        if completion.cached:
            self.cached += 1
            if usage is not None:
                self.reused_prompt_tokens += usage.prompt_tokens
                self.reused_completion_tokens += usage.completion_tokens
        else:
            self.calls += 1
            self.failed += not completion.ok
            self.call_seconds += completion.seconds
            if usage is not None:
                self.prompt_tokens += usage.prompt_tokens
                self.completion_tokens += usage.completion_tokens
                self.prefix_cached_tokens += usage.cached_prompt_tokens or 0
        if usage is None and completion.ok:
            self.usage_unknown += 1


def short_count(n: float) -> str:
    """A token count for people: 512, 40k, 1.2M."""
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if n >= size:
            return f"{n / size:.1f}".removesuffix(".0") + suffix
    return str(int(n))


def token_line(stats: CallStats) -> str:
    """"1.2M prompt + 40k completion tokens" (the new calls' tokens), naming the calls whose usage is unknown."""
    line = f"{short_count(stats.prompt_tokens)} prompt + {short_count(stats.completion_tokens)} completion tokens"
    return line + (f" (usage unknown for {stats.usage_unknown} calls)" if stats.usage_unknown else "")


def _complete_batch(backend: Backend, requests: Sequence[ChatRequest]) -> list[Completion]:
    results: list[Completion | None] = [None] * len(requests)

    def on_result(index: int, completion: Completion) -> None:
        results[index] = completion

    backend.complete_many(requests, on_result)
    missing = sum(r is None for r in results)
    if missing:
        raise RuntimeError(f"backend {backend.identity} returned no result for {missing} requests")
    return results  # type: ignore[return-value]


class ModelClient:
    """Cache first, then the backend. Each successful answer is committed to the cache the moment it
    arrives; failures are returned (never cached) so that a re-run retries exactly them. Identical
    requests in flight at the same time are sent once."""

    def __init__(self, backend: Backend, cache: CallCache | None, public_spec: str):
        self.backend = backend
        self.cache = cache
        self.public_spec = public_spec
        self.stats = CallStats()
        self.by_role: dict[str | None, CallStats] = {}
        self._per_request = hasattr(backend, "complete_one")
        concurrency = int(getattr(backend, "concurrency", 1))
        self._executor = (
            ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="call") if self._per_request else None
        )
        self._batcher = None if self._per_request else MicroBatcher(
            lambda reqs: _complete_batch(backend, reqs), max_batch=int(getattr(backend, "max_batch", 256)),
            quiet=float(getattr(backend, "quiet", 0.0)))  # a Batch API backend's waves (``openai_batch``)
        self._in_flight: dict[str, asyncio.Future] = {}
        self.budget: Budget | None = None  # the run's caps on new calls (set by its judge set)

    async def acomplete(self, request: ChatRequest, refresh: bool = False) -> Completion:
        """One request through cache, in-flight de-duplication and the backend; ``refresh`` skips the
        cache lookup (the new answer replaces the cached one)."""
        key = request.cache_key(self.backend.identity)
        if self.cache is not None and not refresh:
            hit = self.cache.entries([key]).get(key)
            if hit is not None:
                return self._count(Completion(hit[0], cached=True, usage=hit[1]))
        shared = self._in_flight.get(key)
        if shared is not None and shared.get_loop() is asyncio.get_running_loop():
            completion = await asyncio.shield(shared)
            self._count(replace(completion, cached=True))  # counted as cached, returned as the call's own answer
            return completion
        role = CALL_ROLE.get()
        reserved = self.budget.admit(request, role, self.public_spec) if self.budget is not None else 0.0
        if reserved is None:  # the run stopped on budget: not sent, not counted
            return Completion(None, error=self.budget.refusal())  # type: ignore[union-attr]
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            completion = self._count(await self._dispatch(request, key))
            if self.budget is not None:
                self.budget.settle(reserved, role, self.public_spec, completion)
            future.set_result(completion)
            return completion
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved: waiters re-raise it, nobody else must
            raise
        finally:
            self._in_flight.pop(key, None)

    def _count(self, completion: Completion) -> Completion:
        """Count a finished call in the totals and under the role it was made for (``CALL_ROLE``)."""
        self.stats.add(completion)
        self.by_role.setdefault(CALL_ROLE.get(), CallStats()).add(completion)
        return completion

    def _store(self, key: str, completion: Completion) -> Completion:
        """Commit a successful answer at once (failures are never cached). A secret the server echoed (a known API
        key, URL credentials) is redacted before the reply is cached or used, so both runs see the same text."""
        if completion.ok:
            completion = replace(completion, text=redact_known(completion.text or ""))
            if self.cache is not None:
                self.cache.put(key, self.backend.identity, completion.text or "", completion.usage)
        return completion

    async def _dispatch(self, request: ChatRequest, key: str) -> Completion:
        """Per-request backends answer and commit in the worker thread, before it takes its next request, so a
        kill loses at most the K calls in flight; batches commit as soon as they return."""
        if self._executor is not None:
            loop = asyncio.get_running_loop()
            call = self.backend.complete_one  # type: ignore[attr-defined]
            return await loop.run_in_executor(self._executor, lambda: self._store(key, call(request)))
        return self._store(key, await self._batcher.submit(request))  # type: ignore[union-attr]

    def complete(self, requests: Sequence[ChatRequest], desc: str = "model calls") -> list[Completion]:
        """All ``requests`` concurrently (batched for local models), results in request order."""

        async def gather() -> list[Completion]:
            with tqdm(total=len(requests), desc=desc, unit="call", file=sys.stderr, dynamic_ncols=True) as bar:

                async def one(request: ChatRequest) -> Completion:
                    completion = await self.acomplete(request)
                    bar.update(1)
                    return completion

                return list(await asyncio.gather(*(one(r) for r in requests)))

        return run_sync(gather()) if requests else []

    def complete_or_raise(self, requests: Sequence[ChatRequest], desc: str = "model calls") -> list[str]:
        """Like ``complete`` but raise one clear error if any call failed (after the cache is written)."""
        completions = self.complete(requests, desc)
        failed = [c for c in completions if not c.ok]
        if failed:
            raise HallubenchError(
                f"{len(failed)} of {len(completions)} calls to {self.public_spec} failed after retries "
                f"(finished calls are cached; re-run to resume). First error: {failed[0].error}"
            )
        return [c.text or "" for c in completions]

    def report(self) -> None:
        """Print the calls summary line (nothing when the client was never used)."""
        if self.stats.calls or self.stats.cached:
            print(self.stats.summary(self.public_spec), file=sys.stderr)

    def close(self) -> None:
        """Stop the worker threads (queued calls are dropped) and close the backend's connections, if it keeps
        any; the cache is closed by its owner."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        if self._batcher is not None:
            self._batcher.close()
        close_backend = getattr(self.backend, "close", None)
        if close_backend is not None:
            close_backend()
