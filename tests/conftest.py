"""Shared fixtures. Tests run offline: hub access is switched off, the call cache is per test.

Scopes: ``isolated_cache`` is per test (autouse; its folder is made with ``tempfile``, not ``tmp_path``, which costs
milliseconds a test that thousands of tests do not need). Things that are costly to make and that no test changes
are made once per session: ``loopback_servers`` (servers handed back reset: logs, counters and fault queue
emptied), ``knowledge_stores`` (stores written once, used read-only), ``tiny_set`` (small saved test sets, read only)
and ``offline_checker`` (the known-name lists). A test that changes such an object makes its own.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support import TINY_ROWS, KnowledgeStores, LoopbackServers, save_set

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def _cache_root(tmp_path_factory) -> Path:
    """The folder holding every test's call-cache folder (under pytest's base temp, kept like ``tmp_path``)."""
    return tmp_path_factory.mktemp("caches")


@pytest.fixture(autouse=True)
def isolated_cache(_cache_root, monkeypatch) -> Path:
    """``HALLUBENCH_CACHE`` is a file in a folder of the test's own (the returned path; its folder is free for the
    test's other cache files)."""
    folder = Path(tempfile.mkdtemp(dir=_cache_root))
    path = folder / "calls.sqlite"
    monkeypatch.setenv("HALLUBENCH_CACHE", str(path))
    return path


@pytest.fixture
def goodwiki_sample() -> Path:
    path = SHARED_DATA / "goodwiki_sample"
    if not path.is_dir():
        pytest.skip("../shared/data/goodwiki_sample is not present")
    return path


@pytest.fixture(scope="session")
def loopback_servers() -> Iterator[LoopbackServers]:
    """Loopback chat and page servers, one per reply function (routes table), started once; ``.chat(reply)`` and
    ``.pages(routes)`` hand one back reset. A module declares its server as a function fixture over it."""
    servers = LoopbackServers()
    yield servers
    servers.close()


@pytest.fixture(scope="session")
def knowledge_stores(tmp_path_factory) -> Iterator[KnowledgeStores]:
    """Knowledge stores written once per (pages, options): ``.path(pages)`` their folder, ``.open(pages)`` the
    store opened read-only."""
    stores = KnowledgeStores(tmp_path_factory.mktemp("knowledge_stores"))
    yield stores
    stores.close()


@pytest.fixture(scope="session")
def tiny_set(tmp_path_factory) -> Callable[[str], Path]:
    """``tiny_set(benchmark)``: the folder of a few valid rows (``support.TINY_ROWS``) saved as a ``DatasetDict``,
    written once per session. Read it only (datasets may add its cache files; that is all)."""
    saved: dict[str, Path] = {}

    def make(name: str) -> Path:
        if name not in saved:
            saved[name] = save_set(tmp_path_factory.mktemp(f"tiny_{name}") / "set", TINY_ROWS[name]())
        return saved[name]

    return make


@pytest.fixture(scope="session")
def offline_checker():
    """GeneratedEntities' offline existence checker with its built-in lists (seconds to load; immutable)."""
    from hallubench_generators.nonexistent_refusal.checkers import OfflineChecker

    return OfflineChecker()
