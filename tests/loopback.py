"""A minimal OpenAI-compatible chat server on 127.0.0.1 for tests, benchmarks and dry runs.

``reply(messages) -> str`` decides the answer; ``faults`` is a queue of injected failures served
before normal answers ("500", "429", "garbage", "timeout"); ``reject_schema`` answers HTTP 400 to any request
carrying ``response_format`` (a server without structured outputs); ``latency`` (seconds, or a function of the
messages) delays every answer. Every answer carries ``usage`` as OpenAI-compatible servers send it
(``prompt_tokens``, ``completion_tokens``, ``total_tokens``, ``prompt_tokens_details.cached_tokens``), counted by
``usage(messages, reply) -> (prompt, completion)``: by default words and punctuation marks (``rough_usage``), or a
real tokenizer's counts that a test passes. With ``prefix_cache``, ``cached_tokens`` is what a server's automatic
prefix cache (vLLM's) would hold: the longest prefix, in ``rough_usage``'s pieces, that the prompt shares with an
earlier request's (listed per request in ``cached_tokens``); else 0.
"""

from __future__ import annotations

import json
import multiprocessing
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_PIECES = re.compile(r"\w+|[^\w\s]")
MESSAGE_OVERHEAD = 4  # role markers a chat template adds around each message


def rough_usage(messages: list[dict], reply: str) -> tuple[int, int]:
    """(prompt, completion) tokens: words and punctuation marks, plus each message's template markers."""
    prompt = sum(len(_PIECES.findall(str(m.get("content", "")))) + MESSAGE_OVERHEAD for m in messages)
    return prompt, len(_PIECES.findall(reply))


def prompt_pieces(messages: list[dict]) -> list[str]:
    """The prompt as ``rough_usage`` counts it: each message's template markers, then its words and marks."""
    return [piece for m in messages
            for piece in (*[f"<{m.get('role')}>"] * MESSAGE_OVERHEAD, *_PIECES.findall(str(m.get("content", ""))))]


def shared_prefix(a: list[str], b: list[str]) -> int:
    """Length of the longest common prefix of two piece lists."""
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 drops connections under high concurrency


class LoopbackChatServer:
    """Serves ``POST /v1/chat/completions`` until ``close()``; counts requests."""

    def __init__(
        self,
        reply: Callable[[list[dict]], str],
        latency: float | Callable[[list[dict]], float] = 0.0,
        faults: list[str] | None = None,
        hang_seconds: float = 5.0,
        usage: Callable[[list[dict], str], tuple[int, int]] = rough_usage,
        reject_schema: bool = False,
        prefix_cache: bool = False,
    ):
        self.reply, self.latency, self.hang_seconds, self.usage = reply, latency, hang_seconds, usage
        self.reject_schema = reject_schema  # HTTP 400 to a request with response_format, as servers without it do
        self.faults = deque(faults or [])
        self.prefix_cache = prefix_cache
        self.cached_tokens: list[int] = []  # per request, when prefix_cache is on
        self._prompts_seen: list[list[str]] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real inference servers do
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    fault = server.faults.popleft() if server.faults else None
                    cached = server._cached_prefix(body.get("messages", [])) if server.prefix_cache else 0
                if fault == "timeout":
                    time.sleep(server.hang_seconds)
                if fault in ("500", "429", "503"):
                    self._send(int(fault), b'{"error": "injected"}')
                    return
                if fault == "garbage":
                    self._send(200, b"<html>not json</html>")
                    return
                if server.reject_schema and "response_format" in body:
                    self._send(400, b'{"error": {"message": "response_format is not supported by this server"}}')
                    return
                messages = body.get("messages", [])
                time.sleep(server.latency(messages) if callable(server.latency) else server.latency)
                text = server.reply(messages)
                prompt, completion = server.usage(messages, text)
                payload = {"id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion",
                           "created": int(time.time()), "model": body.get("model", ""),
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                        "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                     "total_tokens": prompt + completion,
                                     "prompt_tokens_details": {"cached_tokens": cached}}}
                self._send(200, json.dumps(payload).encode())

            def _send(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)  # quick stop
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _cached_prefix(self, messages: list[dict]) -> int:
        """Pieces of this prompt an earlier request's prompt began with (called under the lock)."""
        pieces = prompt_pieces(messages)
        cached = max((shared_prefix(pieces, seen) for seen in self._prompts_seen), default=0)
        self._prompts_seen.append(pieces)
        self.cached_tokens.append(cached)
        return cached

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LoopbackChatServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@contextmanager
def loopback_process(reply: Callable[[list[dict]], str], latency: float | Callable[[list[dict]], float] = 0.0
                     ) -> Iterator[str]:
    """A LoopbackChatServer in a forked child process, yielding its base URL: for throughput benchmarks,
    where a server sharing the client's interpreter would compete with it for the GIL."""
    context = multiprocessing.get_context("fork")
    ports = context.Queue()

    def serve() -> None:
        server = LoopbackChatServer(reply, latency=latency)
        ports.put(server.base_url)
        threading.Event().wait()

    process = context.Process(target=serve, daemon=True)
    process.start()
    try:
        yield ports.get(timeout=30)
    finally:
        process.terminate()
        process.join(timeout=10)
