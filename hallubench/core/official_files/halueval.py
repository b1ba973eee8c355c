"""The official HaluEval data files: a local file, a folder holding ``<task>_data.json``, or the
file downloaded once from the official repository (RUCAIBox/HaluEval ``data/<task>_data.json``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hallubench.core.errors import HallubenchError
from hallubench.core.official_files.tables import read_json_records

OFFICIAL_URL = "https://raw.githubusercontent.com/RUCAIBox/HaluEval/main/data/{task}_data.json"


def official_file(task: str, location: str | None) -> str:
    """A local file for ``task``: the given file, the task's file in the given folder, or the cached download."""
    if location is None:
        from datasets.utils.file_utils import cached_path

        url = OFFICIAL_URL.format(task=task)
        try:
            return cached_path(url)
        except Exception as exc:  # offline, HTTP errors, ...
            raise HallubenchError(
                f"cannot download {url} ({type(exc).__name__}: {exc}); pass a local copy with --metadata dataset=PATH"
            ) from exc
    path = Path(location).expanduser()
    if path.is_file():
        return str(path)
    if not path.is_dir():
        raise HallubenchError(f"{location}: no such file or folder")
    exact = path / f"{task}_data.json"
    candidates = [exact] if exact.is_file() else sorted(path.glob(f"{task}_data*.json"))
    if len(candidates) != 1:
        found = ", ".join(p.name for p in candidates) or "none"
        raise HallubenchError(
            f"{location}: need one {task}_data*.json in this folder for the {task} task (found: {found})"
        )
    return str(candidates[0])


def read_records(task: str, location: str | None, required: Sequence[str]) -> list[dict[str, Any]]:
    """The records of an official-format file for ``task``, checked for the ``required`` columns."""
    path = official_file(task, location)
    records = read_json_records(path)
    bad = next((i for i, r in enumerate(records) if any(c not in r for c in required)), None)
    if bad is not None:
        raise HallubenchError(f"{path}: record {bad + 1} lacks some of the {task} columns {list(required)}")
    return records
