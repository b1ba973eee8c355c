"""``hallubench knowledge``: build a FActScore-format Wikipedia store for long-form evidence, or index one.

``build`` reads GoodWiki (the Hub or a local copy), the offline Vital Articles summaries, or a .jsonl/.parquet
file of (title, text) pages (FActScore's input format; ``text`` may be a list of sentences) and writes
``OUT/knowledge.db`` plus its title index. ``index`` builds the title index of an existing database such as
FActScore's ``enwiki-20230401.db`` ahead of time (otherwise it is built on first use).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path

from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import SUFFIXES, TEXT, checked_fields, iter_records, record_count


def add_parser(subparsers: argparse._SubParsersAction, name: str, argv: list[str] | None) -> None:
    """Add ``knowledge build`` and ``knowledge index`` to the ``hallubench`` sub-command parser."""
    from hallu_metrics.longform.passages import PASSAGE_WORDS
    from hallubench_generators.common.articles import SOURCE_HELP

    knowledge = subparsers.add_parser("knowledge", help="build or index a knowledge store for long-form evidence")
    actions = knowledge.add_subparsers(dest="knowledge_command", required=True)
    build = actions.add_parser("build", help="write a FActScore-format knowledge store (documents(title, text))")
    build.add_argument(
        "--source", required=True, help=f"{SOURCE_HELP}; or a .jsonl/.parquet file with (title, text) columns"
    )
    build.add_argument("--out", type=Path, required=True, help="folder (writes OUT/knowledge.db) or a .db file")
    build.add_argument(
        "--passage-words", type=int, default=PASSAGE_WORDS, help=f"words per passage (default {PASSAGE_WORDS})"
    )
    build.add_argument("--overwrite", action="store_true", help="replace an existing store")
    build.set_defaults(handler=build_command)
    index = actions.add_parser("index", help="build the title index of an existing store (e.g. enwiki-20230401.db)")
    index.add_argument("db", type=Path, help="a FActScore-format .db file or a folder holding knowledge.db")
    index.add_argument("--index-path", type=Path, help="where to write it (default: <db>.titles.fts.sqlite)")
    index.set_defaults(handler=index_command)


def build_command(args: argparse.Namespace) -> int:
    from hallu_metrics.longform.knowledge import write_store

    if args.passage_words < 1:
        raise HallubenchError("--passage-words must be at least 1")
    pages, total = load_pages(args.source)
    write_store(args.out, pages, total=total, passage_words=args.passage_words, overwrite=args.overwrite)
    return 0


def index_command(args: argparse.Namespace) -> int:
    from hallu_metrics.longform.knowledge import KnowledgeStore

    with KnowledgeStore.open(args.db, index_path=args.index_path) as store:
        store.title_index()
        print(store.index_path)
    return 0


def load_pages(source: str) -> tuple[Iterable[tuple[str, str]], int | None]:
    """(title, text) pages of ``source`` and their number: a record file with ``title`` and ``text`` (text, or a list
    of text pieces), else any article source (GoodWiki's ``title`` and ``markdown``). A record without its fields or
    with a value of the wrong type is an error naming the file, the line and the field."""
    path = Path(source).expanduser()
    if path.is_file() and path.suffix.lower() in SUFFIXES:
        first = next(iter_records(path), None)
        if first is None or "markdown" not in first[1] or "text" in first[1]:
            rows = checked_fields(iter_records(path), {"title": TEXT, "text": (str, list)})
            pages = ((row["title"], _text(row["text"])) for row in rows if row["title"] and row["text"])
            return pages, record_count(path)
    from hallubench_generators.common.articles import load_articles

    articles = load_articles(source).articles
    return ((article.title, article.markdown) for article in articles), len(articles)


def _text(value: str | list) -> str:
    return " ".join(str(part) for part in value) if isinstance(value, list) else value
