"""JSON POSTs to a fixed set of endpoints over httpcore, the connection layer under httpx.

A judge call is one POST to one of a few URLs known up front, so httpx's client layer (URL merging, cookie
jar, auth flows, redirects, request and response models) is work without use: measured at K=32, it cost about
0.5 ms of interpreter time per call, a third of a judge call's Python (docs/benchmarks.md, LongWiki judging
throughput). What httpx's client did and judge calls need is kept: kept-alive connections, timeouts, TLS with
httpx's certificate set-up (``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), proxies from the environment (``HTTP_PROXY``,
``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``), and ``user:password@`` in a URL sent as basic auth.
"""

from __future__ import annotations

import base64
import ssl
import time
import urllib.request
from dataclasses import dataclass

import httpcore
import httpx

from hallubench.core.errors import HallubenchError

Headers = list[tuple[bytes, bytes]]


@dataclass(frozen=True)
class _Target:
    url: bytes  # without credentials
    headers: Headers
    pool: httpcore.ConnectionPool | httpcore.HTTPProxy


class ReplyTooLarge(Exception):
    """The reply body passed the byte limit (reading stopped there)."""


class JsonPoster:
    """POST bodies to ``base + path`` for each base URL in ``bases``, with at most ``keepalive`` idle connections
    kept per pool. ``timeout`` bounds connecting, writing, waiting for a connection and for the reply's headers, and
    is a deadline for the whole reply: its body is read in chunks and abandoned once ``timeout`` seconds have passed
    since the request started (a server trickling bytes cannot hold a call open), or once it passes ``max_bytes``."""

    def __init__(
        self, bases: list[str], path: str, headers: dict[str, str], keepalive: int, timeout: float, max_bytes: int
    ):
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._pools: dict[tuple[str | None, str], httpcore.ConnectionPool | httpcore.HTTPProxy] = {}
        self._keepalive = keepalive
        self._ssl: ssl.SSLContext | None = None
        self._targets = {base: self._target(base + path, headers) for base in bases}

    def post(self, base: str, body: bytes) -> tuple[int, bytes]:
        """(status, body) of one POST to ``base``'s endpoint; connection failures and the deadline raise httpcore's
        errors (``ReadTimeout`` for the deadline), a body over the byte limit ``ReplyTooLarge``."""
        target = self._targets[base]
        deadline = time.monotonic() + self._timeout
        timeouts = dict.fromkeys(("connect", "read", "write", "pool"), self._timeout)
        with target.pool.stream("POST", target.url, headers=target.headers, content=body,
                                extensions={"timeout": timeouts}) as response:
            timeouts["read"] = max(deadline - time.monotonic(), 0.001)  # httpcore reads it when the body starts
            chunks, size = [], 0
            for chunk in response.iter_stream():
                size += len(chunk)
                if size > self._max_bytes:
                    raise ReplyTooLarge(f"reply body over {self._max_bytes} bytes")
                chunks.append(chunk)
                if time.monotonic() > deadline:
                    raise httpcore.ReadTimeout(f"no complete reply within the {self._timeout:g} s deadline")
        return response.status, b"".join(chunks)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()

    def _target(self, address: str, headers: dict[str, str]) -> _Target:
        url = httpx.URL(address)
        fields = dict(headers)
        if url.username or url.password:  # as httpx does: the URL's credentials become basic auth
            pair = f"{url.username}:{url.password}".encode()
            fields = {name: value for name, value in fields.items() if name.lower() != "authorization"}
            fields["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
            url = url.copy_with(username=None, password=None)
        encoded = [(name.encode("ascii"), value.encode("latin-1")) for name, value in fields.items()]
        return _Target(str(url).encode("ascii"), encoded, self._pool(url))

    def _pool(self, url: httpx.URL) -> httpcore.ConnectionPool | httpcore.HTTPProxy:
        """One pool per (proxy, scheme) (proxy ``None``: direct), shared by the endpoints it serves; TLS is set up
        only where a URL needs it."""
        proxy = environment_proxy(url)
        key = (proxy, url.scheme)
        if key not in self._pools:
            common: dict = {"max_connections": None, "max_keepalive_connections": self._keepalive}
            if url.scheme == "https":
                common["ssl_context"] = self._ssl_context()
            if proxy is None:
                self._pools[key] = httpcore.ConnectionPool(**common)
            else:
                proxy_url = httpx.URL(proxy)
                auth = (proxy_url.username, proxy_url.password) if proxy_url.username else None
                if proxy_url.scheme == "https":
                    common["proxy_ssl_context"] = self._ssl_context()
                self._pools[key] = httpcore.HTTPProxy(
                    proxy_url=str(proxy_url.copy_with(username=None, password=None)), proxy_auth=auth, **common
                )
        return self._pools[key]

    def _ssl_context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = httpx.create_ssl_context()
        return self._ssl


def environment_proxy(url: httpx.URL) -> str | None:
    """The HTTP(S) proxy the environment sets for ``url`` (``<scheme>_proxy`` or ``all_proxy``, either case),
    unless ``no_proxy`` exempts its host; a SOCKS proxy is a one-line error."""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(url.host):
        return None
    if "://" not in proxy:
        proxy = "http://" + proxy
    if not proxy.startswith(("http://", "https://")):
        raise HallubenchError(f"proxy {proxy.split('://')[0]}://... for {url.host} is not an HTTP(S) proxy; "
                              "the openai backend supports HTTP(S) proxies only")
    return proxy
