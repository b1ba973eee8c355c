"""A web-page server on 127.0.0.1 for tests and benchmarks of the knowledge fetcher: fixed routes
(status, content type, body, delay, redirect), an optional Brave-format search endpoint, request
counts per path and the peak number of requests in flight (overall and per ``Host`` header)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

SEARCH_PATH = "/res/v1/web/search"


@dataclass(frozen=True)
class Route:
    """One page. Without ``length`` the body is sent with no Content-Length (read until close)."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    delay: float = 0.0
    location: str | None = None
    length: bool = True


class _Server(ThreadingHTTPServer):
    request_queue_size = 256
    daemon_threads = True


class LoopbackPageServer:
    """Serves ``routes`` (path -> Route) plus ``SEARCH_PATH`` answering ``results[q]`` (paths on this
    server, or full URLs) as Brave JSON. ``latency`` delays every request; counters are safe to read
    once requests have finished."""

    def __init__(self, routes: dict[str, Route], results: dict[str, list[str]] | None = None, latency: float = 0.0):
        self.routes, self.results, self.latency = routes, results or {}, latency
        self.hits: Counter = Counter()
        self.search_headers: list[dict] = []
        self.peak, self.peak_per_host = 0, Counter()
        self._in_flight, self._in_flight_per_host = 0, Counter()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                host = self.headers.get("Host", "").split(":")[0]
                with server._lock:
                    server._in_flight += 1
                    server._in_flight_per_host[host] += 1
                    server.peak = max(server.peak, server._in_flight)
                    server.peak_per_host[host] = max(server.peak_per_host[host], server._in_flight_per_host[host])
                try:
                    time.sleep(server.latency)
                    server._answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading (size limit, timeout)
                finally:
                    with server._lock:
                        server._in_flight -= 1
                        server._in_flight_per_host[host] -= 1

        self._server = _Server(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)  # quick stop
        self._thread.start()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        parsed = urlparse(handler.path)
        with self._lock:
            self.hits[parsed.path] += 1
        if parsed.path == SEARCH_PATH:
            with self._lock:
                self.search_headers.append(dict(handler.headers))
            query = parse_qs(parsed.query).get("q", [""])[0]
            urls = [p if p.startswith("http") else self.url(p) for p in self.results.get(query, [])]
            payload = {"web": {"results": [{"url": url} for url in urls]}}
            self._send(handler, Route(json.dumps(payload).encode(), content_type="application/json"))
            return
        route = self.routes.get(parsed.path, Route(b"not found", status=404, content_type="text/plain"))
        time.sleep(route.delay)
        self._send(handler, route)

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, route: Route) -> None:
        handler.send_response(route.status)
        handler.send_header("Content-Type", route.content_type)
        if route.location:
            handler.send_header("Location", route.location)
        if route.length:
            handler.send_header("Content-Length", str(len(route.body)))
        handler.end_headers()
        for start in range(0, len(route.body), 65536):
            handler.wfile.write(route.body[start : start + 65536])

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self._server.server_address[1]}{path}"

    @property
    def search_url(self) -> str:
        return self.url(SEARCH_PATH)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LoopbackPageServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
