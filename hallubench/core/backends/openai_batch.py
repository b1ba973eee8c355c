"""Judge calls through the OpenAI Batch API (``openai-batch:`` specs; OpenAI, other providers and vLLM's batch runner
serve the same endpoints): a wave of requests is uploaded as one JSONL file (``POST /files``, purpose ``batch``), run
as one batch (``POST /batches`` on ``/v1/chat/completions``), polled (``GET /batches/{id}``) and read back from its
output and error files (``GET /files/{id}/content``), lines matched by ``custom_id`` (their order is arbitrary).

Waves: the backend is a bulk backend, so ``ModelClient`` gathers single requests in a ``MicroBatcher`` that waits for
a quiet moment (``quiet`` seconds without a new request): every chain's first step forms the first wave, the second
steps of the items whose first step came back the next, and so on. ``custom_id`` is the request's cache key, and the
identity is the realtime ``openai:`` backend's, so both share cache entries: a verdict is never paid twice.

Failed lines (HTTP 429 / 5xx, a line without a response, a failed batch) are retried, ``retry=wave`` in the next
wave, ``retry=realtime`` at once through ``/chat/completions``; lines an expired or cancelled batch left unfinished
join the next wave; after ``max_retries`` waves a line fails. Other HTTP errors (400: a schema the server refuses)
fail at once, as realtime calls do. Each submitted batch is recorded with its lines' keys in the cache file
(``batch_lines``) before it is polled, so a run killed while a batch is in flight resumes by polling it: no second
upload. Every successful line is cached the moment its batch is read, also lines no chain of this run asks for; on a
run's first wave, the other recorded batches of the model are polled once and those that ended are read.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
from tenacity import (
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_when_event_set,
    wait_exponential_jitter,
)

from hallubench.core.backends.aio import NEXT_BATCH
from hallubench.core.backends.base import ChatRequest, Completion, Usage
from hallubench.core.backends.cache import CallCache
from hallubench.core.backends.openai_http import ENDPOINT_PATH, OpenAIChatBackend, reply_usage
from hallubench.core.errors import HallubenchError, sqlite_errors
from hallubench.core.specs import check_keys, float_value, int_value, redact, redact_known, str_value

KIND = "openai-batch"
ALLOWED_KEYS = {"base_url", "model", "poll", "window", "retry", "max_retries", "quiet", "max_lines", "timeout",
                "concurrency", "api_key_env"}
RETRY_MODES = ("wave", "realtime")
MAX_LINES = 50_000  # OpenAI's limit of requests per batch
MAX_FILE_BYTES = 190 * 2**20  # under OpenAI's 200 MB limit of a batch input file
TERMINAL = ("completed", "failed", "expired", "cancelled")
UNFINISHED_CODES = ("batch_expired", "batch_cancelled")


@dataclass(frozen=True)
class LineOutcome:
    """One line's result: ``text`` and ``usage`` on success, else ``error``; ``retry``: worth sending again
    (a transient failure, or a line its batch left unfinished: ``unfinished``)."""

    text: str | None = None
    usage: Usage | None = None
    error: str | None = None
    retry: bool = False
    unfinished: bool = False


def read_line(line: dict[str, Any], batch_id: str) -> LineOutcome:
    """A line of a batch's output or error file as an outcome."""
    response, error = line.get("response"), line.get("error")
    if isinstance(response, dict) and isinstance(response.get("status_code"), int):
        status, body = response["status_code"], response.get("body")
        if status == 200:
            try:
                content = body["choices"][0]["message"]["content"]
            except (KeyError, IndexError, TypeError):
                content = None
            if isinstance(content, str):
                return LineOutcome(text=content, usage=reply_usage(body))
            return LineOutcome(error=f"malformed response line in batch {batch_id}", retry=True)
        detail = redact(json.dumps(body))[:200] if body is not None else ""  # redacted before it is cut
        return LineOutcome(error=f"HTTP {status} in batch {batch_id}: {detail}", retry=status == 429 or status >= 500)
    code = error.get("code") if isinstance(error, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    if code in UNFINISHED_CODES:
        return LineOutcome(error=f"{code} in batch {batch_id}", retry=True, unfinished=True)
    return LineOutcome(error=f"line failed in batch {batch_id}: {code or 'error'} {redact(str(message or ''))[:200]}",
                       retry=True)


class BatchLedger:
    """Submitted batches and the cache keys of their lines, in the call cache's SQLite file (table ``batch_lines``),
    kept until the batch's results are cached. Without a cache file, kept in memory (no resume)."""

    def __init__(self, cache: CallCache | None):
        self._where = str(cache.path) if cache is not None else ":memory:"
        with self._errors("open"):
            self._db = sqlite3.connect(self._where, check_same_thread=False, timeout=60)
            self._db.execute("CREATE TABLE IF NOT EXISTS batch_lines (batch_id TEXT NOT NULL, key TEXT NOT NULL, "
                             "backend TEXT NOT NULL, submitted REAL NOT NULL, PRIMARY KEY (key, batch_id))")
            self._db.commit()

    def _errors(self, action: str):
        return sqlite_errors(f"cannot {action} the batch ledger in {self._where}",
                             "delete or move the cache file, or pass another --cache")

    def pending(self, keys: Sequence[str]) -> dict[str, str]:
        """Key -> the id of a batch recorded for it and not yet read."""
        found: dict[str, str] = {}
        with self._errors("read"):
            for start in range(0, len(keys), 500):
                chunk = list(keys[start:start + 500])
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(f"SELECT key, batch_id FROM batch_lines WHERE key IN ({marks}) ORDER BY "
                                        "submitted", chunk)
                found.update(rows.fetchall())
        return found

    def batches(self, backend: str) -> list[str]:
        """The recorded batches of ``backend``, oldest first."""
        with self._errors("read"):
            rows = self._db.execute("SELECT batch_id FROM batch_lines WHERE backend = ? GROUP BY batch_id ORDER BY "
                                    "MIN(submitted)", (backend,))
            return [batch_id for (batch_id,) in rows]

    def keys_of(self, batch_id: str) -> list[str]:
        with self._errors("read"):
            return [key for (key,) in self._db.execute("SELECT key FROM batch_lines WHERE batch_id = ?", (batch_id,))]

    def record(self, batch_id: str, keys: Iterable[str], backend: str) -> None:
        now = time.time()
        with self._errors("write"):
            self._db.executemany("INSERT OR REPLACE INTO batch_lines VALUES (?, ?, ?, ?)",
                                 [(batch_id, key, backend, now) for key in keys])
            self._db.commit()

    def forget(self, batch_id: str) -> None:
        """The batch is read and its results cached."""
        with self._errors("write"):
            self._db.execute("DELETE FROM batch_lines WHERE batch_id = ?", (batch_id,))
            self._db.commit()

    def close(self) -> None:
        self._db.close()


class TransientHTTP(Exception):
    """A control-plane failure worth retrying (connection, timeout, 429, 5xx)."""


class BatchEndpoints:
    """The Batch API's files and batches endpoints under one base URL, each call retried with backoff (a malformed
    reply too); ``closing`` ends the retries and their waits at once."""

    def __init__(self, base_url: str, headers: dict[str, str], timeout: float, attempts: int, secrets: list[str],
                 closing: threading.Event):
        self.base_url, self.attempts, self._secrets, self._closing = base_url, attempts, secrets, closing
        self._http = httpx.Client(headers=headers, timeout=timeout)

    def _call(self, method: str, path: str, json_lines: bool = False, **kwargs: Any) -> Any:
        """The reply's JSON (``json_lines``: its list of JSON lines)."""
        where = f"{self.base_url}{path}"

        def once() -> Any:
            if self._closing.is_set():
                raise HallubenchError(f"closed before {method} {where}")
            try:
                response = self._http.request(method, where, **kwargs)
            except httpx.HTTPError as exc:
                raise TransientHTTP(f"{type(exc).__name__} from {where}: {exc}") from exc
            except RuntimeError as exc:  # httpx: the client was closed (the run ends) while this call waited
                raise HallubenchError(f"closed during {method} {where}") from exc
            if response.status_code == 429 or response.status_code >= 500:
                raise TransientHTTP(f"HTTP {response.status_code} from {where}")
            if response.status_code >= 400:
                detail = "" if response.status_code in (401, 403) else ": " + response.text[:200]
                raise HallubenchError(f"HTTP {response.status_code} from {where}{detail}")
            try:
                if json_lines:
                    return [json.loads(line) for line in response.text.splitlines() if line.strip()]
                return response.json()
            except ValueError as exc:
                raise TransientHTTP(f"malformed reply from {where}: {response.text[:80]!r}") from exc

        retrying = Retrying(retry=retry_if_exception_type(TransientHTTP),
                            stop=stop_after_attempt(self.attempts) | stop_when_event_set(self._closing),
                            wait=wait_exponential_jitter(initial=1, max=30), sleep=self._closing.wait, reraise=True)
        try:
            return retrying(once)
        except (TransientHTTP, HallubenchError) as exc:
            raise HallubenchError(redact(str(exc), self._secrets)) from exc

    def upload(self, lines: bytes) -> str:
        files = {"file": ("hallubench-wave.jsonl", lines, "application/jsonl")}
        return str(self._call("POST", "/files", data={"purpose": "batch"}, files=files)["id"])

    def create(self, file_id: str, window: str) -> dict[str, Any]:
        body = {"input_file_id": file_id, "endpoint": "/v1" + ENDPOINT_PATH, "completion_window": window,
                "metadata": {"created_by": "hallubench"}}
        return self._call("POST", "/batches", json=body)

    def get(self, batch_id: str) -> dict[str, Any]:
        return self._call("GET", f"/batches/{batch_id}")

    def lines(self, file_id: str | None) -> list[dict[str, Any]]:
        """The JSON lines of a result file (none without a file)."""
        return self._call("GET", f"/files/{file_id}/content", json_lines=True) if file_id else []

    def close(self) -> None:
        self._http.close()


class OpenAIBatchBackend:
    """Requests in bulk through the Batch API (module docstring); ``complete_many`` answers one wave."""

    def __init__(self, base_url: str, model: str, cache: CallCache | None, poll: float = 30.0, window: str = "24h",
                 retry: str = "wave", max_retries: int = 3, quiet: float = 2.0, max_lines: int = MAX_LINES,
                 timeout: float = 120.0, concurrency: int = 8, api_key_env: str = "OPENAI_API_KEY"):
        if "|" in base_url:
            raise HallubenchError(f"bad {KIND} spec: one base_url (a batch runs on one server; replicas are for "
                                  "realtime openai: judges)")
        if retry not in RETRY_MODES:
            raise HallubenchError(f"bad {KIND} spec: retry must be wave or realtime, got {retry!r}")
        if not re.fullmatch(r"[1-9]\d*h", window):
            raise HallubenchError(f"bad {KIND} spec: window must be hours such as 24h, got {window!r}")
        self.realtime = OpenAIChatBackend(base_url, model, concurrency=concurrency, timeout=timeout,
                                          max_retries=max_retries, api_key_env=api_key_env)
        self.identity = self.realtime.identity  # the realtime judge's: cache entries are shared
        self.model, self.cache, self.poll, self.window = model, cache, poll, window
        self.retry, self.max_retries, self.quiet, self.max_batch = retry, max_retries, quiet, max_lines
        self.concurrency = concurrency
        self._closing = threading.Event()  # wakes a poll's wait when the run ends (Ctrl-C): no thread outlives it
        api_key = os.environ.get(api_key_env)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._endpoints = BatchEndpoints(self.realtime.breaker.urls[0], headers, timeout, max_retries + 1,
                                         [api_key] if api_key else [], self._closing)
        self._ledger = BatchLedger(cache)
        self._waves: dict[str, int] = {}  # key -> waves it was sent in (this process)
        self._harvested = False

    @classmethod
    def from_args(cls, args: dict[str, Any], cache: CallCache | None) -> OpenAIBatchBackend:
        """Validate spec values (one-line errors) and build the backend."""
        check_keys(KIND, args, ALLOWED_KEYS, ("base_url", "model"))
        return cls(
            base_url=str_value(KIND, args, "base_url"), model=str_value(KIND, args, "model"), cache=cache,
            poll=float_value(KIND, args, "poll", 30.0, 0.0, 3600.0, allow_minimum=False),
            window=str_value(KIND, args, "window", "24h"), retry=str_value(KIND, args, "retry", "wave"),
            max_retries=int_value(KIND, args, "max_retries", 3, minimum=0),
            quiet=float_value(KIND, args, "quiet", 2.0, 0.0, 3600.0),
            max_lines=int_value(KIND, args, "max_lines", MAX_LINES, minimum=1),
            timeout=float_value(KIND, args, "timeout", 120.0, 0.0, 86_400.0, allow_minimum=False),
            concurrency=int_value(KIND, args, "concurrency", 8, minimum=1),
            api_key_env=str_value(KIND, args, "api_key_env", "OPENAI_API_KEY"),
        )

    def check_reachable(self, timeout: float) -> None:
        self.realtime.check_reachable(timeout)

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        """One wave: a new batch for the requests no recorded batch holds, the recorded ones polled (resume)."""
        start = time.perf_counter()
        keys = [request.cache_key(self.identity) for request in requests]
        for key in keys:
            self._waves[key] = self._waves.get(key, 0) + 1
        recorded = self._ledger.pending(keys)
        if not self._harvested:
            self._harvest(set(recorded.values()))
        fresh = [i for i, key in enumerate(keys) if key not in recorded]
        batches = list(dict.fromkeys(recorded.values()))
        if recorded:
            print(f"[hallubench] {KIND} judge {self.model}: resuming {len(batches)} recorded batch(es) for "
                  f"{len(recorded)} requests (no second upload)", file=sys.stderr)
        try:
            if fresh:
                batches += self._submit([requests[i] for i in fresh], [keys[i] for i in fresh])
            outcomes = self._await_batches(batches)
        except HallubenchError as exc:  # the server is unreachable: the wave fails; recorded batches resume next run
            for i in range(len(requests)):
                on_result(i, Completion(None, error=f"{exc} (submitted batches resume on a re-run)"))
            return
        seconds = time.perf_counter() - start
        realtime: list[int] = []
        for i, key in enumerate(keys):
            outcome = outcomes.get(key, LineOutcome(error="no line for this request in its batch", retry=True,
                                                    unfinished=True))
            if outcome.text is not None:
                on_result(i, Completion(outcome.text, usage=outcome.usage, seconds=seconds))
            elif not outcome.retry or self._waves[key] > self.max_retries:
                on_result(i, Completion(None, error=f"{outcome.error} (sent in {self._waves[key]} batch(es))"))
            elif self.retry == "realtime" and not outcome.unfinished:
                realtime.append(i)
            else:
                on_result(i, NEXT_BATCH)
        if realtime:
            with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
                answers = pool.map(self.realtime.complete_one, [requests[i] for i in realtime])
                for i, completion in zip(realtime, answers):
                    on_result(i, completion)

    def _harvest(self, awaited: set[str]) -> None:
        """Once per run: every other recorded batch of this model (a killed run's) is polled once, and the results of
        those that ended are cached, whatever this run asks."""
        self._harvested = True
        try:
            for batch_id in self._ledger.batches(self.identity):
                if batch_id not in awaited:
                    batch = self._endpoints.get(batch_id)
                    if batch.get("status") in TERMINAL:
                        self._read(batch)
        except HallubenchError as exc:  # the wave itself says whether the server answers
            print(f"[hallubench] {KIND} judge {self.model}: recorded batches not read ({exc})", file=sys.stderr)

    def _submit(self, requests: Sequence[ChatRequest], keys: Sequence[str]) -> list[str]:
        """Upload the wave's lines and create its batches (one per ``MAX_FILE_BYTES`` of lines), each recorded the
        moment it exists."""
        lines = [json.dumps({"custom_id": key, "method": "POST", "url": "/v1" + ENDPOINT_PATH,
                             "body": self.realtime.payload(request)}, ensure_ascii=True) + "\n"
                 for request, key in zip(requests, keys)]
        batch_ids: list[str] = []
        start = 0
        while start < len(lines):
            end, size = start, 0
            while end < len(lines) and (end == start or size + len(lines[end]) <= MAX_FILE_BYTES):
                size += len(lines[end])
                end += 1
            file_id = self._endpoints.upload("".join(lines[start:end]).encode("ascii"))
            batch = self._endpoints.create(file_id, self.window)
            self._ledger.record(str(batch["id"]), keys[start:end], self.identity)
            print(f"[hallubench] {KIND} judge {self.model}: batch {batch['id']} submitted ({end - start} requests, "
                  f"window {self.window}); polling every {self.poll:g} s", file=sys.stderr)
            batch_ids.append(str(batch["id"]))
            start = end
        return batch_ids

    def _await_batches(self, batch_ids: Sequence[str]) -> dict[str, LineOutcome]:
        """Poll until every batch ends; each one's lines read, its successful lines cached, its record dropped."""
        outcomes: dict[str, LineOutcome] = {}
        waiting = list(batch_ids)
        while waiting:
            for batch_id in list(waiting):
                batch = self._endpoints.get(batch_id)
                if batch.get("status") in TERMINAL:
                    outcomes.update(self._read(batch))
                    waiting.remove(batch_id)
            if waiting and self._closing.wait(self.poll):
                raise HallubenchError(f"stopped while batch(es) {', '.join(waiting)} ran")
        return outcomes

    def _read(self, batch: dict[str, Any]) -> dict[str, LineOutcome]:
        """The batch's lines by key; the successful ones cached before its record is dropped (a kill between the
        two re-reads the batch, never re-sends it)."""
        batch_id, status = str(batch["id"]), batch.get("status")
        outcomes: dict[str, LineOutcome] = {}
        for line in [*self._endpoints.lines(batch.get("output_file_id")),
                     *self._endpoints.lines(batch.get("error_file_id"))]:
            if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
                outcomes[line["custom_id"]] = read_line(line, batch_id)
        keys = self._ledger.keys_of(batch_id)
        for key in keys:
            if key not in outcomes:  # an expired / cancelled batch's unfinished lines, or a batch that failed whole
                failed = status == "failed"
                reason = json.dumps(batch.get("errors"))[:200] if failed else f"unfinished ({status})"
                outcomes[key] = LineOutcome(error=f"batch {batch_id} {status}: {reason}", retry=True,
                                            unfinished=not failed)
        if self.cache is not None:
            self.cache.put_many([(key, self.identity, redact_known(outcome.text), outcome.usage)
                                 for key, outcome in outcomes.items() if outcome.text is not None])
        self._ledger.forget(batch_id)
        return outcomes

    def close(self) -> None:
        self._closing.set()
        self._endpoints.close()
        self._ledger.close()
        self.realtime.close()

