"""Web search for an entity's top result URLs (WildHallucinations section 2.1: the top 10 Google
results with the entity as the keyword). Two APIs, keys read from the environment only:

- Brave Search API (``$BRAVE_API_KEY``, header ``X-Subscription-Token``);
- Google Custom Search JSON API (``$GOOGLE_API_KEY`` and ``$GOOGLE_CSE_ID``), the paper's engine.

Each answered query is committed to the ``WebCache``, so re-runs neither pay nor drift. The endpoint
is configurable (a loopback server stands in for the API in tests). Error messages never show the
request URL (Google's carries the key).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import httpx
import tenacity

from hallubench.core.errors import HallubenchError
from hallubench_generators.wildhallucinations.webcache import WebCache

TOP_K = 10
BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
GOOGLE_URL = "https://www.googleapis.com/customsearch/v1"
RETRIED_STATUS = frozenset({429, 500, 502, 503, 504})


class _Retry(Exception):
    """A response worth retrying (rate limit or server error)."""


def _env(name: str, backend: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise HallubenchError(f"--search {backend} needs ${name} in the environment")
    return value


class WebSearch:
    """One search API: ``request(query) -> (params, headers)`` and ``urls(json) -> list``, plus retries,
    the result count and the cache around them."""

    def __init__(self, name: str, endpoint: str, cache: WebCache, request: Callable[[str], tuple[dict, dict]],
                 urls: Callable[[dict], list[str]], top_k: int = TOP_K, attempts: int = 4, timeout: float = 20.0):
        self.name, self.endpoint, self.cache, self.top_k = name, endpoint, cache, top_k
        self._request, self._urls, self._attempts = request, urls, attempts
        self._client = httpx.Client(timeout=timeout)
        self.endpoint_note = "" if endpoint in (BRAVE_URL, GOOGLE_URL) else " (through a custom endpoint)"
        self.requests = 0  # API calls made (cache hits excluded)

    def search(self, query: str) -> list[str]:
        """The top ``top_k`` result URLs for ``query`` (cached)."""
        cached = self.cache.search(self.name, query)
        if cached is not None:
            return cached[: self.top_k]
        urls = list(dict.fromkeys(self._call(query)))[: self.top_k]
        self.cache.put_search(self.name, query, urls)
        return urls

    def _call(self, query: str) -> list[str]:
        params, headers = self._request(query)
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self._attempts),
            wait=tenacity.wait_exponential(multiplier=1, max=16),
            retry=tenacity.retry_if_exception_type((_Retry, httpx.TransportError)),
            reraise=True,
        )

        def once() -> httpx.Response:
            self.requests += 1
            response = self._client.get(self.endpoint, params=params, headers=headers)
            if response.status_code in RETRIED_STATUS:
                raise _Retry(f"HTTP {response.status_code}")
            return response

        try:
            response = retrying(once)
        except (_Retry, httpx.TransportError) as exc:
            cause = exc if isinstance(exc, _Retry) else type(exc).__name__
            raise HallubenchError(f"{self.name} search for {query!r} failed: {cause}") from None
        if response.status_code != 200:
            raise HallubenchError(f"{self.name} search for {query!r} failed: HTTP {response.status_code}")
        try:
            return self._urls(response.json())
        except (ValueError, AttributeError, TypeError):
            raise HallubenchError(f"{self.name} search for {query!r}: the reply is not the API's JSON") from None


def brave(cache: WebCache, endpoint: str | None = None) -> WebSearch:
    key = _env("BRAVE_API_KEY", "brave")
    return WebSearch(
        "brave", endpoint or BRAVE_URL, cache,
        request=lambda q: ({"q": q, "count": TOP_K}, {"X-Subscription-Token": key, "Accept": "application/json"}),
        urls=lambda data: [r["url"] for r in (data.get("web") or {}).get("results", []) if r.get("url")],
    )


def google(cache: WebCache, endpoint: str | None = None) -> WebSearch:
    key, engine = _env("GOOGLE_API_KEY", "google"), _env("GOOGLE_CSE_ID", "google")
    return WebSearch(
        "google", endpoint or GOOGLE_URL, cache,
        request=lambda q: ({"key": key, "cx": engine, "q": q, "num": TOP_K}, {"Accept": "application/json"}),
        urls=lambda data: [item["link"] for item in data.get("items", []) if item.get("link")],
    )


BACKENDS = {"brave": brave, "google": google}
