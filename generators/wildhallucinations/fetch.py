"""Fetch search-result pages and clean them to text (WildHallucinations section 2.1 and appendix C).

A page counts only when it answers HTTP 200 with HTML or plain text no larger than ``max_bytes``
(the body is streamed and the download stopped at the limit). HTML is reduced to its main text by
trafilatura, which parses markup and never runs scripts. Then the appendix C filters apply:

- hosts that need a login to show content (the paper's list: twitter, youtube, instagram, reddit,
  facebook, amazon, linkedin; plus x.com, twitter's current domain) are never fetched;
- a redirect that ends on a login page (a path segment such as ``login``/``signin``) is a login wall;
- a page whose cleaned text contains a wall phrase (the paper's "You're signed out" and "Log in to",
  plus sign-in, paywall, cookie-wall and bot-check phrases in ``WALL_PHRASES``) is dropped. The check
  runs when pages are read, so a cached page is judged by the current list.

Fetching is concurrent under a global limit and a per-host limit, names the project in its
User-Agent, and commits every finished fetch to the SQLite ``WebCache`` at once (resumable).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import httpx
import tenacity
from tqdm.auto import tqdm

from hallubench import __version__
from hallubench_generators.wildhallucinations.webcache import Page, WebCache

USER_AGENT = f"hallubench/{__version__} (WildHallucinations knowledge-source builder; research benchmark)"
ALLOWED_CONTENT_TYPES = frozenset({"text/html", "application/xhtml+xml", "text/plain"})
LOGIN_HOSTS = (
    "twitter.com", "x.com", "youtube.com", "instagram.com", "reddit.com", "facebook.com", "amazon.com", "linkedin.com",
)
LOGIN_PATH = re.compile(r"/(?:log-?in|sign-?in|signin|accounts/login|auth/login)(?:[/?.]|$)", re.IGNORECASE)
WALL_PHRASES = (
    "you're signed out", "log in to", "login to continue", "sign in to continue", "sign in to view",
    "sign in to read", "subscribe to continue reading", "subscribe to read", "this content is for subscribers",
    "create a free account to continue", "accept cookies to continue", "please enable cookies",
    "enable javascript and cookies to continue", "verify you are human", "are you a robot",
)
RETRIED = (httpx.ConnectError, httpx.RemoteProtocolError)


@dataclass(frozen=True)
class FetchPolicy:
    """Limits for fetching: seconds per page (whole download), bytes per page, concurrent requests."""

    timeout: float = 15.0
    max_bytes: int = 5_000_000
    concurrency: int = 16
    per_host: int = 2
    attempts: int = 3  # connection errors only; HTTP errors and timeouts are final


@dataclass(frozen=True)
class _Body:
    """A downloaded response body still to be cleaned."""

    body: bytes
    content_type: str
    charset: str | None


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def login_host(url: str) -> bool:
    host = httpx.URL(url).host.lower()
    return any(host == h or host.endswith("." + h) for h in LOGIN_HOSTS)


def refusal(url: str) -> str | None:
    """Why a URL is not fetched at all (``bad_url``, ``login_host``); None when it may be fetched."""
    try:
        if not url.startswith(("http://", "https://")) or not httpx.URL(url).host:
            return "bad_url"
        return "login_host" if login_host(url) else None
    except httpx.InvalidURL:
        return "bad_url"


def wall_phrase(text: str) -> str | None:
    """The first wall phrase in a page's text (apostrophes normalised, case folded), if any."""
    folded = text.replace("\u2019", "'").casefold()
    return next((phrase for phrase in WALL_PHRASES if phrase in folded), None)


def verdict(page: Page) -> str:
    """``ok`` for a usable page, else why it is not (fetch reason, or ``login_wall`` from its text)."""
    if page.reason != "ok":
        return page.reason
    return "login_wall" if wall_phrase(page.text) else "ok"


def clean(body: bytes, content_type: str, charset: str | None) -> str:
    """Main text of an HTML page (trafilatura), or the decoded text of a plain-text page."""
    if content_type == "text/plain":
        return body.decode(charset or "utf-8", errors="replace").strip()
    import trafilatura

    return (trafilatura.extract(body, include_comments=False, include_tables=True) or "").strip()


def _content_type(response: httpx.Response) -> str:
    return response.headers.get("content-type", "").split(";")[0].strip().lower()


class Fetcher:
    """Fetches URLs into ``Page``s through the cache; blocked hosts and non-HTTP URLs get no request."""

    def __init__(self, cache: WebCache, policy: FetchPolicy = FetchPolicy(), retry_failed: bool = False,
                 user_agent: str = USER_AGENT):
        self.cache, self.policy, self.user_agent = cache, policy, user_agent
        self.retry_failed = retry_failed  # fetch again cached pages that got no HTTP response (timeouts, errors)
        self.fetched = 0  # network fetches made by this fetcher (cache hits excluded)

    def fetch_all(self, urls: Sequence[str], desc: str = "wildhallucinations: fetch pages") -> dict[str, Page]:
        """A page for every URL: cached, blocked, or fetched now (committed to the cache as it finishes)."""
        wanted = list(dict.fromkeys(urls))
        pages = {url: page for url, page in self.cache.pages(wanted).items()
                 if not (self.retry_failed and page.status_code == 0)}
        for url in wanted:
            reason = None if url in pages else refusal(url)
            if reason:
                pages[url] = Page(url, 0, reason, "", "")
        todo = [url for url in wanted if url not in pages]
        if todo:
            pages.update(asyncio.run(self._fetch_many(todo, desc)))
        return pages

    async def _fetch_many(self, urls: list[str], desc: str) -> dict[str, Page]:
        size = self.policy.concurrency
        limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
        timeout = httpx.Timeout(self.policy.timeout)
        total = asyncio.Semaphore(self.policy.concurrency)
        per_host: dict[str, asyncio.Semaphore] = defaultdict(lambda: asyncio.Semaphore(self.policy.per_host))
        bar = tqdm(total=len(urls), desc=desc, unit="page", file=sys.stderr, dynamic_ncols=True)
        headers = {"User-Agent": self.user_agent, "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9"}
        async with httpx.AsyncClient(headers=headers, timeout=timeout, limits=limits, follow_redirects=True) as client:

            async def one(url: str) -> Page:
                async with per_host[httpx.URL(url).host], total:  # host slot first: a busy host holds no global slot
                    page = await self._fetch_one(client, url)
                self.cache.put_page(page)
                self.fetched += 1
                bar.update(1)
                return page

            try:
                results = await asyncio.gather(*(one(url) for url in urls))
            finally:
                bar.close()
        return {page.url: page for page in results}

    async def _fetch_one(self, client: httpx.AsyncClient, url: str) -> Page:
        retrying = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.policy.attempts),
            wait=tenacity.wait_exponential(multiplier=0.5, max=4),
            retry=tenacity.retry_if_exception_type(RETRIED),
            reraise=True,
        )
        try:
            got = await retrying(self._download_within_deadline, client, url)
        except (asyncio.TimeoutError, httpx.TimeoutException):
            return Page(url, 0, "timeout", "", now())
        except httpx.HTTPError as exc:
            return Page(url, 0, f"error:{type(exc).__name__}", "", now())
        if isinstance(got, Page):
            return got
        text = await asyncio.to_thread(clean, got.body, got.content_type, got.charset)  # outside the deadline
        return Page(url, 200, "ok" if text else "no_text", text, now())

    async def _download_within_deadline(self, client: httpx.AsyncClient, url: str) -> Page | _Body:
        return await asyncio.wait_for(self._download(client, url), self.policy.timeout)

    async def _download(self, client: httpx.AsyncClient, url: str) -> Page | _Body:
        """The body of an acceptable response, or the ``Page`` saying why the response is refused."""
        async with client.stream("GET", url) as response:
            final = str(response.url)
            if final != url and (login_host(final) or LOGIN_PATH.search(httpx.URL(final).path)):
                return Page(url, response.status_code, "login_redirect", "", now())
            if response.status_code != 200:
                return Page(url, response.status_code, "http_status", "", now())
            content_type = _content_type(response)
            if content_type not in ALLOWED_CONTENT_TYPES:
                return Page(url, 200, "content_type", "", now())
            if int(response.headers.get("content-length") or 0) > self.policy.max_bytes:
                return Page(url, 200, "too_large", "", now())
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > self.policy.max_bytes:
                    return Page(url, 200, "too_large", "", now())
            return _Body(bytes(body), content_type, response.charset_encoding)
