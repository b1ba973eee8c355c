"""Any OpenAI-compatible ``/chat/completions`` endpoint (vLLM, SGLang, llama.cpp server, OpenAI).

httpx does the HTTP, tenacity the retries (exponential backoff with jitter on 429, 5xx, timeouts,
connection errors and malformed bodies); a thread pool bounds concurrency. Several base URLs
(``a|b``) spread requests over replicas, and a retry moves on to the next replica.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from itertools import count
from typing import Any, Sequence

import httpx
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from hallubench.backends.base import ChatRequest, Completion
from hallubench.errors import HallubenchError

ALLOWED_KEYS = {"base_url", "model", "concurrency", "timeout", "max_retries", "backoff", "api_key_env"}


class TransientError(Exception):
    """A failure worth retrying."""


class PermanentError(Exception):
    """A failure retrying will not fix (bad request, auth)."""


class OpenAIChatBackend:
    """Chat completions over HTTP with bounded concurrency, retries and per-request timeouts."""

    def __init__(
        self,
        base_url: str,
        model: str,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 5,
        backoff: float = 1.0,
        api_key_env: str = "OPENAI_API_KEY",
    ):
        urls = [u.strip().rstrip("/") for u in str(base_url).split("|") if u.strip()]
        if not urls or not all(u.startswith(("http://", "https://")) for u in urls):
            raise HallubenchError(f"bad base_url {base_url!r}: expected http(s) URLs separated by '|'")
        if int(concurrency) < 1 or int(max_retries) < 0 or float(timeout) <= 0:
            raise HallubenchError("concurrency must be >= 1, max_retries >= 0 and timeout > 0")
        self.urls = urls
        self.model = str(model)
        self.concurrency = int(concurrency)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.identity = f"openai-chat/{self.model}"
        api_key = os.environ.get(str(api_key_env))
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(timeout=float(timeout), headers=headers)
        self._replica = count()

    @classmethod
    def from_args(cls, args: dict[str, Any]) -> "OpenAIChatBackend":
        unknown = set(args) - ALLOWED_KEYS
        if unknown:
            raise HallubenchError(f"bad openai spec: unknown keys {sorted(unknown)} (allowed: {sorted(ALLOWED_KEYS)})")
        if "base_url" not in args or "model" not in args:
            raise HallubenchError("bad openai spec: base_url=... and model=... are required")
        return cls(**args)

    def _post_once(self, request: ChatRequest) -> str:
        url = self.urls[next(self._replica) % len(self.urls)] + "/chat/completions"
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.message_dicts(),
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None and request.temperature > 0:
            body["seed"] = request.seed
        try:
            response = self._http.post(url, json=body)
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            raise TransientError(f"{type(exc).__name__} from {url}: {exc}") from exc
        if response.status_code == 429 or response.status_code >= 500:
            raise TransientError(f"HTTP {response.status_code} from {url}")
        if response.status_code >= 400:
            raise PermanentError(f"HTTP {response.status_code} from {url}: {response.text[:200]}")
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise TransientError(f"malformed response body from {url}: {response.text[:80]!r}") from exc
        if not isinstance(content, str):
            raise TransientError(f"response from {url} has no text content")
        return content

    def complete_one(self, request: ChatRequest) -> Completion:
        """One request with retries; a failure becomes a ``Completion`` with ``error`` set."""
        retrying = Retrying(
            retry=retry_if_exception_type(TransientError),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential_jitter(multiplier=self.backoff, max=60.0),
            reraise=False,
        )
        try:
            return Completion(retrying(self._post_once, request))
        except RetryError as exc:
            return Completion(None, error=f"{exc.last_attempt.exception()} (after {self.max_retries + 1} attempts)")
        except PermanentError as exc:
            return Completion(None, error=str(exc))

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {pool.submit(self.complete_one, r): i for i, r in enumerate(requests)}
            for future in as_completed(futures):
                on_result(futures[future], future.result())
        finally:  # on Ctrl-C / kill: drop queued calls instead of waiting for them
            pool.shutdown(wait=False, cancel_futures=True)
