"""Shared fixtures. Tests run offline: hub access is switched off, the call cache is per test."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(autouse=True)
def isolated_cache(tmp_path, monkeypatch) -> Path:
    path = tmp_path / "calls.sqlite"
    monkeypatch.setenv("HALLUBENCH_CACHE", str(path))
    return path


@pytest.fixture
def goodwiki_sample() -> Path:
    path = SHARED_DATA / "goodwiki_sample"
    if not path.is_dir():
        pytest.skip("../shared/data/goodwiki_sample is not present")
    return path
