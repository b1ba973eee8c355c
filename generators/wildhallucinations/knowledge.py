"""Per-entity knowledge sources (WildHallucinations section 2.1): the usable pages among an entity's
top search results, from the web (search API + fetching) or from a local folder (offline runs).

Folder layout for ``--search folder:PATH``::

    PATH/<entity slug>/*.html | *.htm | *.txt    pages, read in file-name order (at most 10)
    PATH/<entity slug>/urls.json                 optional {"file name": "original URL"}

The slug is the entity lower-cased with every run of non-alphanumeric characters replaced by ``-``
("Lake Baikal" -> ``lake-baikal``). A page without a URL in urls.json gets ``<slug>/<file name>``.
Folder pages go through the same HTML cleaning and wall-phrase filter as fetched pages.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Protocol

from tqdm.auto import tqdm

from hallubench.core.errors import HallubenchError
from hallubench_generators.wildhallucinations.fetch import Fetcher, clean, verdict
from hallubench_generators.wildhallucinations.search import TOP_K, WebSearch
from hallubench_generators.wildhallucinations.webcache import Page

PAGE_SUFFIXES = {".html": "text/html", ".htm": "text/html", ".txt": "text/plain"}


@dataclass(frozen=True)
class Knowledge:
    """An entity's usable pages and the latest fetch date among them ("" when unknown)."""

    pages: list[Page]

    @property
    def fetch_date(self) -> str:
        return max((p.fetched_at[:10] for p in self.pages), default="")

    def info(self) -> list[dict]:
        """The Hub schema's ``info`` list."""
        return [{"status_code": p.status_code, "text": p.text, "url": p.url} for p in self.pages]


class KnowledgeSource(Protocol):
    name: str  # for the ``search_backend`` column
    description: str  # for the card
    page_counts: Counter  # page verdicts (ok, http_status, login_wall, ...)

    def knowledge(self, entities: Sequence[str]) -> list[Knowledge]:
        """One ``Knowledge`` per entity, in order."""


def slug(entity: str) -> str:
    return re.sub(r"[^\w]+", "-", entity.casefold()).strip("-")


def _usable(pages: list[Page], counts: Counter) -> list[Page]:
    kept = []
    for page in pages:
        reason = verdict(page)
        counts[reason] += 1
        if reason == "ok":
            kept.append(page)
    return kept


class WebKnowledge:
    """Top results of a search API, fetched and filtered."""

    def __init__(self, search: WebSearch, fetcher: Fetcher):
        self.search, self.fetcher = search, fetcher
        self.name = search.name
        self.page_counts: Counter = Counter()
        policy = fetcher.policy
        self.description = (
            f"Top {search.top_k} results of the {search.name} search API{search.endpoint_note} per entity "
            f"(the entity string is the query), fetched with User-Agent `{fetcher.user_agent}`: HTTP 200 and "
            f"HTML or plain text only, at most {policy.max_bytes} bytes and {policy.timeout} s per page, "
            f"{policy.concurrency} requests at once and {policy.per_host} per host; login hosts, login redirects "
            f"and wall phrases dropped; HTML cleaned to text by trafilatura {version('trafilatura')}."
        )

    def knowledge(self, entities: Sequence[str]) -> list[Knowledge]:
        results = [self.search.search(e) for e in tqdm(entities, desc=f"wildhallucinations: {self.name} search",
                                                          unit="query", file=sys.stderr, dynamic_ncols=True)]
        pages = self.fetcher.fetch_all([url for urls in results for url in urls])
        return [Knowledge(_usable([pages[url] for url in urls], self.page_counts)) for urls in results]


class FolderKnowledge:
    """Pages saved under ``PATH/<entity slug>/`` (see the module docstring)."""

    def __init__(self, root: Path):
        if not root.is_dir():
            raise HallubenchError(f"--search folder:{root}: not a folder")
        self.root = root
        self.name = f"folder:{root.name}"
        self.page_counts: Counter = Counter()
        self.description = (
            f"Pages saved in the local folder `{root.name}` (<entity slug>/*.html, *.htm, *.txt; URLs from urls.json), "
            f"cleaned to text by trafilatura {version('trafilatura')}, wall phrases dropped."
        )

    def _pages(self, entity: str) -> list[Page]:
        folder = self.root / slug(entity)
        if not folder.is_dir():
            return []
        urls_file = folder / "urls.json"
        try:
            urls = json.loads(urls_file.read_text(encoding="utf-8")) if urls_file.is_file() else {}
        except ValueError as exc:
            raise HallubenchError(f"malformed {urls_file}: {exc}") from exc
        files = sorted(p for p in folder.iterdir() if p.suffix.lower() in PAGE_SUFFIXES)[:TOP_K]
        pages = []
        for path in files:
            text = clean(path.read_bytes(), PAGE_SUFFIXES[path.suffix.lower()], "utf-8")
            url = str(urls.get(path.name) or f"{folder.name}/{path.name}")
            pages.append(Page(url, 200, "ok" if text else "no_text", text, ""))
        return pages

    def knowledge(self, entities: Sequence[str]) -> list[Knowledge]:
        return [Knowledge(_usable(self._pages(e), self.page_counts)) for e in entities]
