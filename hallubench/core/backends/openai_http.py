"""Any OpenAI-compatible ``/chat/completions`` endpoint (vLLM, SGLang, llama.cpp server, OpenAI).

httpcore (httpx's connection layer, see ``http_post``) does the HTTP, tenacity the retries (exponential
backoff with jitter on 429, 5xx, timeouts, connection errors and malformed bodies); a thread pool bounds
concurrency. Several base URLs
(``a|b``) spread requests over replicas, and a retry moves on to the next replica.

A circuit breaker stops a run against a dead endpoint within seconds: after ``dead_after``
consecutive connection-level failures (connection refused, DNS failure) a replica is skipped; when
no replica is left every pending and future call of the backend fails at once with one line naming
the endpoint(s). Transient failures of a live server (5xx, 429, timeouts, dropped connections) keep
their retries. No error text carries a reply body of a 401/403, and every error text is redacted.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any
from urllib.parse import urlsplit

import httpcore
from tenacity import RetryError, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

from hallubench import __version__
from hallubench.core.backends.base import ChatRequest, Completion, Usage
from hallubench.core.backends.http_post import JsonPoster, ReplyTooLarge
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import check_keys, float_value, int_value, redact, remember_secret, str_value

KIND = "openai"
ALLOWED_KEYS = {"base_url", "model", "concurrency", "timeout", "max_retries", "backoff", "api_key_env", "dead_after",
                "max_reply_bytes"}
MAX_REPLY_BYTES = 4 * 1024 * 1024  # a judge verdict or a long-form answer is kilobytes; nothing legitimate nears this
MAX_TIMEOUT_S = 86_400.0  # larger values overflow socket timeouts
BODY_CHARS_IN_ERRORS = 200
ENDPOINT_PATH = "/chat/completions"
TIMEOUTS_BEFORE_WARNING = 2


def _start(body: bytes, chars: int, secrets: list[str]) -> str:
    """The first ``chars`` characters of a reply body for an error line, redacted before it is cut (a key cut in
    half would no longer match the redaction)."""
    return redact(body.decode("utf-8", "replace"), secrets)[:chars]


def reply_usage(reply: Any) -> Usage | None:
    """The ``usage`` of a chat completion body (``prompt_tokens``, ``completion_tokens`` and, where the server tells,
    ``prompt_tokens_details.cached_tokens``); None when the server sends none or sends it malformed."""
    usage = reply.get("usage") if isinstance(reply, dict) else None
    if not isinstance(usage, dict):
        return None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in (prompt, completion)):
        return None
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(prompt, completion, cached if isinstance(cached, int) and not isinstance(cached, bool) else None)


class TransientError(Exception):
    """A failure worth retrying."""


class PermanentError(Exception):
    """A failure retrying will not fix (bad request, auth)."""


class EndpointDown(PermanentError):
    """Every replica refused connections ``dead_after`` times in a row."""


class CircuitBreaker:
    """Consecutive connection-level failures per replica; a replica is dead once it reaches the limit,
    and ``all_dead`` is set (waking every backoff sleep) when no replica is left."""

    def __init__(self, urls: list[str], dead_after: int):
        self.urls, self.dead_after = urls, dead_after
        self._failures = dict.fromkeys(urls, 0)
        self._last_error: dict[str, str] = {}
        self._lock = threading.Lock()
        self._turn = 0
        self.all_dead = threading.Event()

    def pick(self) -> str:
        """The next live replica, round robin; raises EndpointDown when none is left."""
        with self._lock:
            for _ in self.urls:
                url = self.urls[self._turn % len(self.urls)]
                self._turn += 1
                if self._failures[url] < self.dead_after:
                    return url
        raise EndpointDown(self.down_message())

    def connected(self, url: str) -> None:
        with self._lock:
            self._failures[url] = 0

    def refused(self, url: str, error: str) -> None:
        with self._lock:
            self._failures[url] += 1
            self._last_error[url] = error
            if all(n >= self.dead_after for n in self._failures.values()):
                self.all_dead.set()

    def down_message(self) -> str:
        names = ", ".join(self.urls)
        first = self._last_error.get(self.urls[0], "")
        return (
            f"endpoint{'s' if len(self.urls) > 1 else ''} {names} unreachable: {first} "
            f"({self.dead_after} consecutive connection failures{' each' if len(self.urls) > 1 else ''})"
        )


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
        dead_after: int = 3,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ):
        urls = [u.strip().rstrip("/") for u in str(base_url).split("|") if u.strip()]
        if not urls or not all(u.startswith(("http://", "https://")) and urlsplit(u).hostname for u in urls):
            raise HallubenchError(f"bad base_url {redact(str(base_url))!r}: expected http(s) URLs separated by '|'")
        self.model = str(model)
        self.concurrency = int(concurrency)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.identity = f"openai-chat/{self.model}"
        self.breaker = CircuitBreaker(urls, int(dead_after))
        api_key = os.environ.get(str(api_key_env))
        remember_secret(api_key)
        self._secrets = [api_key] if api_key else []
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.api_key_env = str(api_key_env)
        self._probe_headers = dict(headers)
        headers.update({"Content-Type": "application/json", "Accept": "application/json",
                        "User-Agent": f"hallubench/{__version__}"})
        # One kept-alive connection per concurrent call (with fewer, calls beyond them reconnect each time).
        self.max_reply_bytes = int(max_reply_bytes)
        self.timeout = float(timeout)
        self._timeouts = 0  # attempts abandoned at the deadline (the server may still be computing each)
        self._timeouts_lock = threading.Lock()
        self._http = JsonPoster(urls, ENDPOINT_PATH, headers, keepalive=self.concurrency, timeout=float(timeout),
                                max_bytes=self.max_reply_bytes)

    @classmethod
    def from_args(cls, args: dict[str, Any]) -> OpenAIChatBackend:
        """Validate spec values (one-line errors) and build the backend."""
        check_keys(KIND, args, ALLOWED_KEYS, ("base_url", "model"))
        return cls(
            base_url=str_value(KIND, args, "base_url"),
            model=str_value(KIND, args, "model"),
            concurrency=int_value(KIND, args, "concurrency", 8, minimum=1),
            timeout=float_value(KIND, args, "timeout", 120.0, 0.0, MAX_TIMEOUT_S, allow_minimum=False),
            max_retries=int_value(KIND, args, "max_retries", 5, minimum=0),
            backoff=float_value(KIND, args, "backoff", 1.0, 0.0, 3600.0),
            api_key_env=str_value(KIND, args, "api_key_env", "OPENAI_API_KEY"),
            dead_after=int_value(KIND, args, "dead_after", 3, minimum=1),
            max_reply_bytes=int_value(KIND, args, "max_reply_bytes", MAX_REPLY_BYTES, minimum=1),
        )

    def _body(self, request: ChatRequest) -> bytes:
        """The JSON request body, ASCII-escaped so that any text (even a lone surrogate) can be sent."""
        return json.dumps(self.payload(request), ensure_ascii=True).encode("ascii")

    def payload(self, request: ChatRequest) -> dict[str, Any]:
        """The chat completions request body (also a Batch API line's ``body``, ``openai_batch``)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": request.message_dicts(),
            "temperature": request.temperature,
            "top_p": request.top_p,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None and request.temperature > 0:
            body["seed"] = request.seed
        if request.response_format is not None:  # OpenAI's json_schema form, accepted by vLLM, SGLang, llama.cpp
            schema = json.loads(request.response_format)
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.get("title", "verdict"), "schema": schema, "strict": True},
            }
        return body

    def _post_once(self, request: ChatRequest) -> tuple[str, Usage | None]:
        base = self.breaker.pick()
        url = base + ENDPOINT_PATH
        try:
            status, body = self._http.post(base, self._body(request))
        except httpcore.ConnectError as exc:  # nothing listening, DNS failure: counts towards the breaker
            error = f"{type(exc).__name__}: {exc}"
            self.breaker.refused(base, error)
            if self.breaker.all_dead.is_set():
                raise EndpointDown(self.breaker.down_message()) from exc
            raise TransientError(f"{error} from {url}") from exc
        except httpcore.TimeoutException as exc:
            self._timed_out()
            raise TransientError(f"{type(exc).__name__} from {url}: {exc}") from exc
        except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.ProxyError) as exc:
            raise TransientError(f"{type(exc).__name__} from {url}: {exc}") from exc
        except ReplyTooLarge as exc:
            raise PermanentError(f"{exc} from {url} (raise max_reply_bytes= on the spec if this is expected)") from exc
        self.breaker.connected(base)
        if status in (401, 403):
            raise PermanentError(f"HTTP {status} from {url} (authentication refused; reply body not recorded)")
        if status == 429 or status >= 500:
            raise TransientError(f"HTTP {status} from {url}")
        if status >= 400:
            raise PermanentError(f"HTTP {status} from {url}: {_start(body, BODY_CHARS_IN_ERRORS, self._secrets)}")
        try:
            reply = json.loads(body)
            content = reply["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise TransientError(f"malformed response body from {url}: {_start(body, 80, self._secrets)!r}") from exc
        if not isinstance(content, str):
            raise TransientError(f"response from {url} has no text content")
        return content, reply_usage(reply)

    def _timed_out(self) -> None:
        """Count an abandoned attempt; at the second, say once why retries then multiply a slow server's load."""
        with self._timeouts_lock:
            self._timeouts += 1
            if self._timeouts != TIMEOUTS_BEFORE_WARNING:
                return
        print(f"[hallubench] judge {self.identity}: {TIMEOUTS_BEFORE_WARNING} attempts got no reply within "
              f"timeout={self.timeout:g} s (concurrency={self.concurrency}, max_retries={self.max_retries}). The "
              "server goes on computing each abandoned attempt, so every retry adds to its load; for a slow (CPU) "
              "server use concurrency=1,timeout=600 on the judge spec", file=sys.stderr)

    def complete_one(self, request: ChatRequest) -> Completion:
        """One request with retries; a failure becomes a ``Completion`` with a redacted ``error``."""
        retrying = Retrying(
            retry=retry_if_exception_type(TransientError),
            stop=stop_after_attempt(self.max_retries + 1),
            wait=wait_exponential_jitter(multiplier=self.backoff, jitter=self.backoff, max=60.0),
            sleep=self.breaker.all_dead.wait,  # a backoff sleep ends the moment the endpoint is declared dead
            reraise=False,
        )
        start = time.perf_counter()
        try:
            text, usage = retrying(self._post_once, request)
            return Completion(text, usage=usage, seconds=time.perf_counter() - start)
        except RetryError as exc:
            error = f"{exc.last_attempt.exception()} (after {self.max_retries + 1} attempts)"
        except PermanentError as exc:
            error = str(exc)
        return Completion(None, error=redact(error, self._secrets))

    def check_reachable(self, timeout: float) -> None:
        """Raise one clear line unless every replica answers HTTP within ``timeout`` seconds (any status but an
        authentication refusal counts: only a dead address, or a key the server refuses, is known to fail every
        call). Sends ``GET /models`` (OpenAI, vLLM, SGLang and llama.cpp servers list their models there)."""
        import httpx

        for base in self.breaker.urls:
            try:
                status = httpx.get(base + "/models", headers=self._probe_headers, timeout=timeout).status_code
            except httpx.HTTPError as exc:
                raise HallubenchError(f"judge endpoint {redact(base)} is unreachable ({type(exc).__name__}: "
                                      f"{redact(str(exc))}); is the server up?") from exc
            if status in (401, 403):
                raise HallubenchError(f"judge endpoint {redact(base)} refused the API key (HTTP {status}); the key is "
                                      f"read from ${self.api_key_env}")

    def close(self) -> None:
        """Close the kept-alive connections."""
        self._http.close()

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        pool = ThreadPoolExecutor(max_workers=self.concurrency)
        try:
            futures = {pool.submit(self.complete_one, r): i for i, r in enumerate(requests)}
            for future in as_completed(futures):
                on_result(futures[future], future.result())
        finally:  # on Ctrl-C / kill: drop queued calls instead of waiting for them
            pool.shutdown(wait=False, cancel_futures=True)
