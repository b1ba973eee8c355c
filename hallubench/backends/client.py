"""A cached, counted, progress-reporting front for any backend."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Sequence

from tqdm.auto import tqdm

from hallubench.backends.base import Backend, ChatRequest, Completion
from hallubench.backends.cache import CallCache
from hallubench.errors import HallubenchError


@dataclass
class CallStats:
    """Counters for one client: calls made, answered from cache, failed."""

    calls: int = 0
    cached: int = 0
    failed: int = 0

    def summary(self, name: str) -> str:
        return f"[hallubench] {name}: {self.calls} calls made, {self.cached} cached, {self.failed} failed"


class ModelClient:
    """Runs requests through the cache first and the backend for the rest.

    Each successful answer is committed to the cache the moment it arrives; failures are
    returned (never cached) so that a re-run retries exactly them.
    """

    def __init__(self, backend: Backend, cache: CallCache | None, public_spec: str):
        self.backend = backend
        self.cache = cache
        self.public_spec = public_spec
        self.stats = CallStats()

    def complete(self, requests: Sequence[ChatRequest], desc: str = "model calls") -> list[Completion]:
        keys = [r.cache_key(self.backend.identity) for r in requests]
        hits = self.cache.get_many(list(set(keys))) if self.cache else {}
        results: list[Completion | None] = [
            Completion(hits[k], cached=True) if k in hits else None for k in keys
        ]
        self.stats.cached += sum(r is not None for r in results)
        # Identical requests are sent once.
        first_index: dict[str, int] = {}
        for i, key in enumerate(keys):
            if results[i] is None:
                first_index.setdefault(key, i)
        todo = sorted(first_index.values())
        if todo:
            bar = tqdm(total=len(todo), desc=desc, unit="call", file=sys.stderr, dynamic_ncols=True)

            def on_result(j: int, completion: Completion) -> None:
                i = todo[j]
                results[i] = completion
                self.stats.calls += 1
                if not completion.ok:
                    self.stats.failed += 1
                elif self.cache:
                    self.cache.put(keys[i], self.backend.identity, completion.text or "")
                bar.update(1)

            try:
                self.backend.complete_many([requests[i] for i in todo], on_result)
            finally:
                bar.close()
            for i, key in enumerate(keys):
                if results[i] is None:
                    results[i] = results[first_index[key]]
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:
            raise RuntimeError(f"backend {self.backend.identity} returned no result for {len(missing)} requests")
        return results  # type: ignore[return-value]

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
