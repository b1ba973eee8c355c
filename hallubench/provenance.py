"""What results and dataset cards record so that they can be reproduced: package version and git
commit, content fingerprints of test sets and data files, and hashes of the prompts used."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import datasets


@lru_cache(maxsize=1)
def software() -> dict[str, str]:
    """hallubench / lm-eval / datasets versions, and the git commit when running from a checkout."""
    versions = {}
    for package in ("hallubench", "lm_eval", "datasets", "transformers", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    root = Path(__file__).resolve().parents[1]
    try:
        commit = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit, dirty = "", ""
    if commit:
        versions["hallubench_git_commit"] = commit + ("-dirty" if dirty else "")
    return versions


def dataset_fingerprint(rows: datasets.Dataset) -> str:
    """sha256 over the rows' content (column order and row order included), independent of where and
    how the Arrow files were written; unlike ``datasets``' own fingerprint it names the content."""
    digest = hashlib.sha256(json.dumps(rows.column_names).encode())
    for batch in rows.iter(batch_size=1000):
        digest.update(json.dumps(batch, sort_keys=True, ensure_ascii=True, default=str).encode("ascii"))
    return "sha256:" + digest.hexdigest()


def file_checksum(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return "sha256:" + digest.hexdigest()


def prompts_hash(texts: Iterable[Any]) -> str:
    """A short hash of prompt templates / worked examples, to tell prompt versions apart."""
    blob = json.dumps([str(t) for t in texts], ensure_ascii=True)
    return "sha256:" + hashlib.sha256(blob.encode("ascii")).hexdigest()[:16]
