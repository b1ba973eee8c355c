"""What results and dataset cards record so that they can be reproduced: package version and git
commit, content fingerprints of test sets and data files, and hashes of the prompts used."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import datasets

_BATCH = 1000  # rows per digest update (the batches ``dataset_fingerprint`` reads)
_INT64 = range(-(2**63), 2**63)


@lru_cache(maxsize=1)
def software() -> dict[str, str]:
    """hallubench / lm-eval / datasets versions, and the git commit when running from a checkout."""
    versions = {}
    for package in ("hallubench", "lm_eval", "datasets", "transformers", "torch"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    root = Path(__file__).resolve().parents[2]
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
    return _digest(rows.column_names, rows.iter(batch_size=_BATCH))


def records_fingerprint(records: Sequence[dict[str, Any]]) -> str | None:
    """``dataset_fingerprint`` of ``datasets.Dataset.from_list(records)`` without building it (nor importing
    ``datasets``), when the Arrow round trip cannot change a value: every column holds one scalar type (str, int in
    int64, float, bool) or None. None otherwise (nested or mixed columns: build the Dataset)."""
    if not records:
        return None
    columns = list(records[0])
    for column in columns:
        kinds = {type(record.get(column)) for record in records} - {type(None)}
        if len(kinds) > 1 or not kinds <= {str, int, float, bool}:
            return None
        if kinds == {int} and any(record.get(column) not in _INT64 for record in records if record.get(column)):
            return None
    batches = ({column: [record.get(column) for record in records[start:start + _BATCH]] for column in columns}
               for start in range(0, len(records), _BATCH))
    return _digest(columns, batches)


def _digest(columns: list[str], batches: Iterable[dict[str, list[Any]]]) -> str:
    digest = hashlib.sha256(json.dumps(columns).encode())
    for batch in batches:
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
