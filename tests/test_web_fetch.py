"""WildHallucinations knowledge fetching against a loopback page server: page filters (status,
content type, size, login walls, redirects, timeouts, scripts), per-host politeness, the SQLite cache
(no second fetch, resume after a kill) and the search APIs (keys from the environment only)."""

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from loopback_pages import Route

from hallubench.core.errors import HallubenchError
from hallubench_generators.wildhallucinations.fetch import (
    USER_AGENT,
    Fetcher,
    FetchPolicy,
    verdict,
    wall_phrase,
)
from hallubench_generators.wildhallucinations.search import brave, google
from hallubench_generators.wildhallucinations.webcache import WebCache

ROOT = Path(__file__).resolve().parents[1]


def html(title: str, body: str, head: str = "") -> bytes:
    head = f"<head><title>{title}</title>{head}</head>"
    return f"<html>{head}<body><article><h1>{title}</h1>{body}</article></body></html>".encode()


ARTICLE = html("Lake Baikal", "<p>Lake Baikal is a rift lake in Siberia. It is the deepest lake in the world.</p>")
ROUTES = {
    "/article": Route(ARTICLE),
    "/signed-out": Route(html("Video", "<p>You\u2019re signed out. Sign in to like videos and comment.</p>")),
    "/huge-streamed": Route(b"<html><body><p>" + b"x" * 2_000_000 + b"</p></body></html>", length=False),
    "/huge-declared": Route(b"<p>" + b"y" * 300_000 + b"</p>"),
    "/image.png": Route(b"\x89PNG\r\n\x1a\n" + b"\0" * 100, content_type="image/png"),
    "/moved": Route(status=302, location="/article"),
    "/to-login": Route(status=302, location="/accounts/login?next=/x"),
    "/paywall": Route(html("News", "<p>Subscribe to continue reading this story about the summit.</p>")),
    "/accounts/login": Route(html("Sign in", "<p>Enter your password.</p>")),
    "/slow": Route(ARTICLE, delay=3.0),
    "/script": Route(html("Scripted", "<p>The visible paragraph about the Glagolitic alphabet.</p>",
                          head="<script>document.write('INJECTED BY SCRIPT')</script>")),
    "/notes.txt": Route(b"Loch Ness is a freshwater loch in Scotland.", content_type="text/plain; charset=utf-8"),
    "/empty": Route(b"<html><body></body></html>"),
    "/error": Route(b"oops", status=500, content_type="text/plain"),
}
POLICY = FetchPolicy(timeout=0.5, max_bytes=100_000, concurrency=8, per_host=2, attempts=1)
# The other tests' tables (the session's page servers are one per table, so each lives at module level).
SLOW_ROUTES = {f"/p{i}": Route(ARTICLE, delay=0.3) for i in range(6)}
RESUME_ROUTES = {f"/p{i}": Route(ARTICLE, delay=0.4) for i in range(12)}
SEARCH_ROUTES: dict[str, Route] = {}
SEARCH_RESULTS = {"Lake Baikal": [f"/r{i}" for i in range(12)]}
GOOGLE_ROUTES = {"/customsearch": Route(b"{}", status=403, content_type="application/json")}


@pytest.fixture
def server(loopback_servers):
    return loopback_servers.pages(ROUTES)


def fetch(server, tmp_path, paths, policy=POLICY):
    fetcher = Fetcher(WebCache(tmp_path / "web.sqlite"), policy)
    urls = [server.url(p) for p in paths]
    pages = fetcher.fetch_all(urls)
    return {p: pages[u] for p, u in zip(paths, urls)}, fetcher


def test_each_kind_of_page_gets_the_documented_verdict(server, tmp_path):
    """Only 200 HTML/plain pages with text and no wall survive; each failure names its cause; scripts
    are never run (their output is absent) and the login host is never requested."""
    pages, _ = fetch(server, tmp_path, [p for p in ROUTES if p != "/accounts/login"] + ["/missing"])
    verdicts = {path: verdict(page) for path, page in pages.items()}
    assert verdicts == {
        "/article": "ok", "/signed-out": "login_wall", "/huge-streamed": "too_large", "/huge-declared": "too_large",
        "/image.png": "content_type", "/moved": "ok", "/to-login": "login_redirect", "/paywall": "login_wall",
        "/slow": "timeout", "/script": "ok", "/notes.txt": "ok", "/empty": "no_text",
        "/error": "http_status", "/missing": "http_status",
    }
    assert pages["/missing"].status_code == 404 and pages["/error"].status_code == 500
    assert "deepest lake" in pages["/moved"].text and pages["/moved"].url.endswith("/moved")
    assert "Glagolitic" in pages["/script"].text and "INJECTED" not in pages["/script"].text
    assert pages["/notes.txt"].text == "Loch Ness is a freshwater loch in Scotland."
    blocked = Fetcher(WebCache(tmp_path / "web.sqlite"), POLICY).fetch_all(["https://www.youtube.com/watch?v=1", "ftp://x/y"])
    assert [p.reason for p in blocked.values()] == ["login_host", "bad_url"]


def test_wall_phrases_fold_case_and_curly_apostrophes():
    """The paper's phrases match whatever the case or apostrophe; ordinary text does not."""
    assert wall_phrase("Please LOG IN TO see this") == "log in to"
    assert wall_phrase("You\u2019re signed out of YouTube") == "you're signed out"
    assert wall_phrase("Lake Baikal holds a fifth of the world's fresh water.") is None


def test_per_host_limit_and_global_concurrency(tmp_path, loopback_servers):
    """With 2 per host, two host names served by one server see at most 2 requests each in flight,
    4 together: polite per host, concurrent across hosts. The User-Agent names the project."""
    s = loopback_servers.pages(SLOW_ROUTES)
    fetcher = Fetcher(WebCache(tmp_path / "web.sqlite"), FetchPolicy(concurrency=8, per_host=2))
    urls = [s.url(p, host) for p in SLOW_ROUTES for host in ("127.0.0.1", "localhost")]
    started = time.monotonic()
    pages = fetcher.fetch_all(urls)
    elapsed = time.monotonic() - started
    assert all(verdict(p) == "ok" for p in pages.values())
    assert s.peak_per_host == {"127.0.0.1": 2, "localhost": 2}
    assert s.peak == 4
    assert elapsed < 6 * 0.3 * 2  # faster than one at a time
    assert USER_AGENT.startswith("hallubench/")


def test_a_second_run_fetches_nothing_and_failures_are_refetched_on_request(server, tmp_path):
    """Every finished fetch is in the cache: a second fetcher on the same file makes no request and
    returns equal pages; --refetch-failed asks again only for pages that got no HTTP answer."""
    paths = ["/article", "/missing", "/slow", "/notes.txt"]
    first, _ = fetch(server, tmp_path, paths)
    hits = dict(server.hits)
    again, fetcher = fetch(server, tmp_path, paths)
    assert again == first and dict(server.hits) == hits and fetcher.fetched == 0
    retry = Fetcher(WebCache(tmp_path / "web.sqlite"), POLICY, retry_failed=True)
    retry.fetch_all([server.url(p) for p in paths])
    assert retry.fetched == 1 and server.hits["/slow"] == hits["/slow"] + 1


def test_a_killed_fetch_resumes_without_refetching_finished_pages(tmp_path, loopback_servers):
    """A fetching process killed midway leaves its finished pages committed; the re-run requests only
    the rest."""
    paths = list(RESUME_ROUTES)
    s = loopback_servers.pages(RESUME_ROUTES)
    urls = [s.url(p) for p in paths]
    db = tmp_path / "web.sqlite"
    script = (
        "import sys; from hallubench_generators.wildhallucinations.fetch import Fetcher, FetchPolicy; "
        "from hallubench_generators.wildhallucinations.webcache import WebCache; "
        "Fetcher(WebCache(sys.argv[1]), FetchPolicy(concurrency=1, per_host=1)).fetch_all(sys.argv[2:])"
    )
    child = subprocess.Popen([sys.executable, "-c", script, str(db), *urls], cwd=ROOT,
                             stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})
    done = 0
    deadline = time.monotonic() + 60
    while done < 3 and time.monotonic() < deadline:
        time.sleep(0.2)
        if db.exists():
            with sqlite3.connect(db) as con:
                done = con.execute("SELECT count(*) FROM pages").fetchone()[0] if _has_pages(con) else 0
    child.kill()
    child.wait()
    with sqlite3.connect(db) as con:
        finished = {row[0] for row in con.execute("SELECT url FROM pages")}
    assert 3 <= len(finished) < len(urls)
    before = dict(s.hits)
    pages = Fetcher(WebCache(db), FetchPolicy()).fetch_all(urls)
    assert all(verdict(p) == "ok" for p in pages.values())
    refetched = {s.url(p) for p in paths if s.hits[p] > before.get(p, 0)}
    assert refetched == set(urls) - finished


def _has_pages(con) -> bool:
    return con.execute("SELECT 1 FROM sqlite_master WHERE name = 'pages'").fetchone() is not None


def test_brave_search_uses_the_env_key_caches_and_cuts_to_ten(tmp_path, monkeypatch, loopback_servers):
    """The key travels only in the X-Subscription-Token header (never in the cache file); results are
    cut to the top 10; a repeated query is answered from the cache."""
    monkeypatch.setenv("BRAVE_API_KEY", "secret-brave-key")
    s = loopback_servers.pages(SEARCH_ROUTES, results=SEARCH_RESULTS)
    search = brave(WebCache(tmp_path / "web.sqlite"), s.search_url)
    urls = search.search("Lake Baikal")
    assert search.search("Lake Baikal") == urls
    assert urls == [s.url(f"/r{i}") for i in range(10)]
    assert search.requests == 1 and s.search_headers[0]["X-Subscription-Token"] == "secret-brave-key"
    assert b"secret-brave-key" not in (tmp_path / "web.sqlite").read_bytes()


def test_search_keys_are_required_and_never_shown(tmp_path, monkeypatch, loopback_servers):
    """A missing key names the variable; a failed Google call does not print the URL that carries the key."""
    monkeypatch.delenv("BRAVE_API_KEY", raising=False)
    with pytest.raises(HallubenchError, match="BRAVE_API_KEY"):
        brave(WebCache(tmp_path / "web.sqlite"))
    monkeypatch.setenv("GOOGLE_API_KEY", "secret-google-key")
    monkeypatch.setenv("GOOGLE_CSE_ID", "engine")
    s = loopback_servers.pages(GOOGLE_ROUTES)
    search = google(WebCache(tmp_path / "web.sqlite"), s.url("/customsearch"))
    with pytest.raises(HallubenchError) as error:
        search.search("Lake Baikal")
    assert "HTTP 403" in str(error.value) and "secret-google-key" not in str(error.value)
