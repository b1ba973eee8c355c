"""``hallubench score --dataset DIR``: a samples file built from a test set, with empty responses, for tasks
whose judge scores the doc itself and ignores the model's reply (e.g. ``faithfulness_hhem``,
``faithfulness_baseline``: a classifier or a metric scores each (reference, hypothesis) pair)."""

from __future__ import annotations

import json
from pathlib import Path


def write_dataset_samples(task: str, location: str, path: Path) -> int:
    """Write the docs of ``task`` loaded from ``location`` (the lm-eval loader, transformation included) to
    ``path`` as lm-eval sample lines with an empty response; returns how many."""
    from hallubench_tasks.dataset_loading import load

    docs = load(task, dataset=location)["test"]
    with path.open("w", encoding="utf-8") as handle:
        for doc in docs:
            handle.write(json.dumps({"doc": doc, "resps": [[""]]}, ensure_ascii=False) + "\n")
    return len(docs)
