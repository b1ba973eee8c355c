"""Helpers shared by the test modules (fixtures built on them live in conftest.py).

- ``task_manager``: lm-eval's task index over hallubench's folder only (0.3 s, against 10-20 s for lm-eval's
  ~15k built-in tasks); exactly one slow test (test_contract) builds the full index to prove no name clashes.
- ``run_cli``: the ``hallubench`` command in-process (``main(argv)``), its exit code and what it printed.
- ``write_jsonl`` / ``save_set`` / ``save_generated_set``: JSON lines, saved ``DatasetDict`` test sets, and sets
  saved as ``hallubench generate`` saves them (card included).
- ``evaluate_module``: a hallu_metrics ``evaluate`` module, imported when a test calls it (evaluate pulls torch).
- ``TINY_ROWS``: a few valid rows of a benchmark's test set (the session fixture ``tiny_set`` saves them once).
- ``LoopbackServers`` / ``KnowledgeStores``: servers and knowledge stores made once per session and handed to test
  after test (the session fixtures ``loopback_servers`` and ``knowledge_stores``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from loopback import LoopbackChatServer
    from loopback_pages import LoopbackPageServer, Route

    from hallu_metrics.longform.knowledge import KnowledgeStore

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def task_manager(metadata: Mapping[str, Any] | None = None, *, include_defaults: bool = False):
    """A ``TaskManager`` indexing hallubench's tasks (and lm-eval's own only when asked)."""
    from lm_eval.tasks import TaskManager

    from hallubench_tasks import TASKS_DIR

    return TaskManager(include_path=str(TASKS_DIR), include_defaults=include_defaults,
                       metadata=dict(metadata) if metadata is not None else None)


def load_task(name: str, metadata: Mapping[str, Any] | None = None):
    """One hallubench task built by lm-eval from its YAML with ``metadata`` (as ``--metadata`` passes it)."""
    return task_manager(metadata).load([name])["tasks"][name]


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*argv: str | Path) -> CliRun:
    """``hallubench ARGV`` in this process: exit code and captured output (as a subprocess would give them)."""
    from hallubench.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's --help and usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return CliRun(code, out.getvalue(), err.getvalue())


def evaluate_module(name: str):
    """hallu_metrics' ``evaluate`` module ``name`` loaded from its folder (imports evaluate, hence transformers and
    torch: seconds, so only in the tests that call it)."""
    import evaluate

    from hallu_metrics.evaluate_metrics import module_path

    return evaluate.load(module_path(name))


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> Path:
    """``rows`` as JSON lines (UTF-8, non-ASCII kept); returns ``path``."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def save_set(path: Path, rows: list[Mapping[str, Any]], split: str = "test") -> Path:
    """``rows`` saved as a ``DatasetDict`` with one split (what ``hallubench generate`` writes); returns ``path``."""
    import datasets

    datasets.DatasetDict({split: datasets.Dataset.from_list(list(rows))}).save_to_disk(str(path))
    return path


def save_generated_set(path: Path, rows: Sequence[Mapping[str, Any]], columns, overwrite: bool = False) -> Path:
    """``rows`` saved by ``hallubench generate``'s writer (``save_test_set``: typed ``columns``, a dataset card,
    the overwrite rules); returns ``path``."""
    from hallubench_generators.common.publishing import CardInfo, save_test_set

    card = CardInfo(pretty_name="t", license="cc-by-sa-4.0", task_categories=["question-answering"], summary="s")
    save_test_set(list(rows), columns, path, card, overwrite)
    return path


# ---------------------------------------------------------------- tiny test sets

def wildhallucinations_rows(n: int = 3) -> list[dict[str, Any]]:
    return [{"entity": f"Entity {i}", "perplexity": 10.0 ** i, "category": "geographic",
             "info": [{"status_code": 200, "text": f"Entity {i} is a place.", "url": f"https://e{i}.example/"}]}
            for i in range(n)]


# A few valid rows of a benchmark's test set, by benchmark name: the ``tiny_set`` fixture saves each once per session.
TINY_ROWS: dict[str, Callable[[], list[dict[str, Any]]]] = {
    "precisewikiqa": lambda: [{"id": f"x{i}", "question": f"Q{i}?", "answer": "Paris", "title": "T", "reference": "r",
                               "difficulty": i % 2} for i in range(4)],
    "wildhallucinations": wildhallucinations_rows,
}


# ---------------------------------------------------------------- shared loopback servers

class LoopbackServers:
    """Loopback servers started once per session and handed to test after test (stopping one costs half a second:
    its poll interval).

    ``chat(reply)`` is the ``LoopbackChatServer`` answering with ``reply``, one server per reply function (two
    servers with the same answers need two functions); ``pages(routes)`` the ``LoopbackPageServer`` serving
    ``routes``, one per routes table. Each comes back as a fresh one would: request logs, headers, hit counters and
    the fault queue emptied, reply and routes as first given (a test may change them; the next caller gets them
    back). A request still in flight from an earlier test (a hanging fault, a slow route) is not waited for. Reply
    functions and routes tables must be module-level: one made inside a test would start a server per call."""

    def __init__(self) -> None:
        self._chat: dict[Callable, tuple[LoopbackChatServer, dict[str, Any]]] = {}
        self._pages: dict[int, tuple[LoopbackPageServer, Mapping[str, Route], dict[str, list[str]]]] = {}

    def chat(self, reply: Callable[[list[dict]], str], *, latency: float = 0.0, faults: Iterable[str] = (),
             hang_seconds: float = 5.0) -> LoopbackChatServer:
        """The server answering with ``reply``, reset, with this test's ``latency``, ``faults`` and ``hang_seconds``
        (``LoopbackChatServer``'s arguments)."""
        from loopback import LoopbackChatServer

        if reply not in self._chat:
            server = LoopbackChatServer(reply)
            self._chat[reply] = (server, {"reply": server.reply, "usage": server.usage})
        server, initial = self._chat[reply]
        with server._lock:
            server.requests.clear()
            server.headers.clear()
            server.faults.clear()
            server.faults.extend(faults)
            server.latency, server.hang_seconds = latency, hang_seconds
            for name, value in initial.items():
                setattr(server, name, value)
        return server

    def pages(self, routes: Mapping[str, Route], results: Mapping[str, list[str]] | None = None
              ) -> LoopbackPageServer:
        from loopback_pages import LoopbackPageServer

        key = id(routes)
        if key not in self._pages:  # the table is kept, so its id stays its own
            self._pages[key] = (LoopbackPageServer(dict(routes), dict(results or {})), routes, dict(results or {}))
        server, routes, results = self._pages[key]
        with server._lock:
            server.routes, server.results, server.latency = dict(routes), dict(results), 0.0
            server.hits.clear()
            server.search_headers.clear()
            server.peak = 0
            server.peak_per_host.clear()
        return server

    def close(self) -> None:
        """Stops every server, all at once (each stop waits out a poll interval)."""
        servers = [server for server, *_ in [*self._chat.values(), *self._pages.values()]]
        stopping = [threading.Thread(target=server.close) for server in servers]
        for thread in stopping:
            thread.start()
        for thread in stopping:
            thread.join()
        self._chat.clear()
        self._pages.clear()


# ---------------------------------------------------------------- shared knowledge stores

class KnowledgeStores:
    """Knowledge stores written once per session under ``root`` by ``write_store`` (database and title index), one
    per distinct (pages, options): ``path(pages)`` is the database file (what ``write_store(...).path`` gives),
    ``open(pages)`` the store opened read-only (shared; closed at session end). A test that writes to a store makes
    its own."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._opened: dict[Path, KnowledgeStore] = {}

    def path(self, pages: Iterable[tuple[str, str]], **options: Any) -> Path:
        from hallu_metrics.longform.knowledge import resolve_store_path, write_store

        pages = [(str(title), str(text)) for title, text in pages]
        key = hashlib.sha256(json.dumps([pages, sorted(options.items())]).encode()).hexdigest()[:16]
        folder = self.root / key
        if not folder.exists():
            write_store(folder, pages, progress=False, **options)
        return resolve_store_path(folder)

    def open(self, pages: Iterable[tuple[str, str]], **options: Any) -> KnowledgeStore:
        from hallu_metrics.longform.knowledge import KnowledgeStore

        folder = self.path(pages, **options)
        if folder not in self._opened:
            self._opened[folder] = KnowledgeStore.open(folder, progress=False)
        return self._opened[folder]

    def close(self) -> None:
        for store in self._opened.values():
            store.close()
        self._opened.clear()


def write_itis(path: Path, taxa: list[tuple[int, int, str]]) -> Path:
    """A small ITIS taxonomy as the SQLite file ``generate mixedentities --itis-db`` reads (its ``hierarchy`` and
    ``longnames`` tables) from (tsn, parent tsn, name) rows, parent 0 for the root; written once per path."""
    if path.exists():
        return path
    import sqlite3

    parent_of = {tsn: parent for tsn, parent, _ in taxa}

    def lineage(tsn: int) -> str:
        return f"{lineage(parent_of[tsn])}-{tsn}" if parent_of[tsn] else str(tsn)

    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE hierarchy (hierarchy_string TEXT, TSN INT, Parent_TSN INT, level INT, "
                   "ChildrenCount INT)")
        db.execute("CREATE TABLE longnames (tsn INT, completename TEXT)")
        db.executemany("INSERT INTO hierarchy VALUES (?, ?, ?, 0, ?)",
                       [(lineage(t), t, p, sum(q == t for _, q, _ in taxa)) for t, p, _ in taxa])
        db.executemany("INSERT INTO longnames VALUES (?, ?)", [(t, n) for t, _, n in taxa])
    db.close()
    return path


def precisewikiqa_chat(answers: Mapping[str, tuple[str, str]]) -> Callable[[list[dict]], str]:
    """A loopback chat model playing both sides of a PreciseWikiQA run: as the model under test it answers each
    question of ``answers`` (question -> (gold, reply)); as the judge it answers the abstention and correctness
    prompts the way chat models do (markdown around the JSON, a sentence before a fenced verdict). "I don't know,
    sorry." abstains; a reply naming Marlowe is incorrect."""

    def reply(messages: list[dict]) -> str:
        system, last = messages[0]["content"], messages[-1]["content"]
        if "is_abstaining" in system:
            return '**Judgement:** {"is_abstaining": %s}' % ("true" if "I don't know, sorry." in last else "false")
        if "Grade a chatbot" in last:
            verdict = "INCORRECT" if "Marlowe" in last else "CORRECT"
            return f'The chatbot answer was compared with the reference.\n\n```json\n{{"verdict": "{verdict}"}}\n```'
        return answers[last][1]

    return reply
