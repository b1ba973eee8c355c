"""ANAH-v2's data: the official questions with reference documents (downloaded once or read from a folder) and the
lm-eval docs with the answering prompt in the question's language."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hallu_metrics.benchmarks.anah.prompts import ANSWER_PROMPTS
from hallubench.core.errors import HallubenchError

if TYPE_CHECKING:
    import datasets

OFFICIAL_URL = "https://media.githubusercontent.com/media/open-compass/ANAH/main/eval/anah_v2/question_document.jsonl"
OFFICIAL_FILE = "question_document.jsonl"
LANGUAGES = ("en", "zh")


def to_docs(rows: datasets.Dataset, options: Mapping[str, Any]) -> datasets.Dataset:
    """Docs with the answering prompt in the question's language (``en`` or ``zh``)."""
    import datasets
    docs = []
    for i, row in enumerate(rows):
        language = str(row["language"]).strip().lower()
        if language not in LANGUAGES:
            raise HallubenchError(f"anah_v2_ref: row {i} language {row['language']!r} is not one of {LANGUAGES}")
        docs.append({"id": str(row.get("id") or i), "question": row["question"], "document": row["document"],
                     "language": language,
                     "prompt": ANSWER_PROMPTS[language].format(document=row["document"], question=row["question"])})
    return datasets.Dataset.from_list(docs)


def read_official(location: str | None) -> list[dict[str, Any]]:
    """ANAH-v2's questions with reference documents (``question_document.jsonl``: question, document, language,
    from the authors' GitHub repository, a Git LFS file of 140 MB) downloaded once when ``location`` is None, or
    read from a folder holding that file."""
    from datasets.utils.file_utils import cached_path

    from hallubench.core.official_files.tables import read_json_records

    if location is None:
        try:
            return read_json_records(cached_path(OFFICIAL_URL))
        except HallubenchError:
            raise
        except Exception as exc:  # offline, HTTP errors, ...
            raise HallubenchError(f"cannot download {OFFICIAL_URL} ({type(exc).__name__}); pass a local copy "
                                  "with --metadata dataset=PATH") from exc
    path = Path(location) / OFFICIAL_FILE
    if not path.is_file():
        raise HallubenchError(f"{location}: no {OFFICIAL_FILE} in this folder")
    return read_json_records(path)
