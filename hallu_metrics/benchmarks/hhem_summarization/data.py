"""HHEM summarization's data: the source documents of the leaderboard's public summaries file (downloaded from
the Hub or read from a folder), the lm-eval docs with the prompt, and the check that the default scorer can be
loaded before the model runs."""

from __future__ import annotations

import csv
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.hhem_summarization.checks import DEFAULT_SCORER_SPEC, NAME
from hallu_metrics.benchmarks.hhem_summarization.prompts import PROMPT
from hallu_metrics.scorers import FLAN_T5_BASE_ID, FLAN_T5_BASE_REVISION, HHEM_2_1_REVISION, HHEM_MODEL_ID
from hallu_metrics.settings import task_setting
from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

LEADERBOARD_REPO = "vectara/leaderboard_results"  # Hub dataset with every model's leaderboard summaries
LEADERBOARD_FILE = "leaderboard_summaries.csv"  # columns include source, summary, model
LOCAL_FILES = (LEADERBOARD_FILE, "source_documents.jsonl")


def default_scorer_available() -> bool:
    """Whether HHEM-2.1-Open (and its flan-t5-base foundation) can be loaded: cached, or the Hub is reachable."""
    from huggingface_hub import constants, try_to_load_from_cache

    if not constants.HF_HUB_OFFLINE:
        return True
    needed = ((HHEM_MODEL_ID, "model.safetensors", HHEM_2_1_REVISION),
              (FLAN_T5_BASE_ID, "config.json", FLAN_T5_BASE_REVISION))
    return all(isinstance(try_to_load_from_cache(repo, name, revision=rev), str) for repo, name, rev in needed)


def check_scorer(options: Mapping[str, Any]) -> None:
    """Fail before the model runs when no judge is given and HHEM-2.1-Open's weights cannot be had."""
    task = str(options.get("task") or NAME)
    spec, _ = task_setting(options, "judge", task)
    if spec in (None, DEFAULT_SCORER_SPEC) and not default_scorer_available():
        raise HallubenchError(
            f"{task}: HHEM-2.1-Open ({HHEM_MODEL_ID}) is not in the local Hugging Face cache and the Hub is offline; "
            "pass judge=hhem:model=FOLDER,foundation=FOLDER, another classifier or an LLM judge spec"
        )


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """One doc per distinct source document (a leaderboard summaries file repeats each per model), in file order,
    with the summarisation prompt."""
    import datasets
    check_scorer(options)
    ids = rows["id"] if "id" in rows.column_names else range(len(rows))
    docs: dict[str, dict[str, str]] = {}
    for row_id, source in zip(ids, rows["source"]):
        if source and source not in docs:
            docs[source] = {"id": str(row_id), "source": source, "prompt": PROMPT.format(source=source)}
    return datasets.Dataset.from_list(list(docs.values()))


def _read_csv_sources(path: Path) -> list[dict[str, Any]]:
    csv.field_size_limit(sys.maxsize)
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if "source" not in (reader.fieldnames or []):
            raise HallubenchError(f"{path}: no 'source' column (columns: {reader.fieldnames})")
        sources = dict.fromkeys(row["source"] for row in reader if row["source"])
    return [{"id": str(i), "source": s} for i, s in enumerate(sources)]


def read_official(location: str | None) -> list[dict[str, Any]]:
    """Source documents from the leaderboard's public summaries file: downloaded from the Hub dataset
    ``vectara/leaderboard_results`` when ``location`` is None, else read from a folder holding
    ``leaderboard_summaries.csv`` or ``source_documents.jsonl`` (id, source)."""
    from hallubench.core.official_files.tables import read_json_records

    if location is None:
        from huggingface_hub import hf_hub_download

        return _read_csv_sources(Path(hf_hub_download(LEADERBOARD_REPO, LEADERBOARD_FILE, repo_type="dataset")))
    folder = Path(location)
    for name in LOCAL_FILES:
        if (folder / name).is_file():
            path = folder / name
            return _read_csv_sources(path) if path.suffix == ".csv" else read_json_records(path)
    raise HallubenchError(f"{location}: holds neither {' nor '.join(LOCAL_FILES)}")
