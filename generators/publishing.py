"""Write a generated test set: ``save_to_disk`` + dataset card, atomically; optional Hub upload."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
from huggingface_hub import DatasetCard, DatasetCardData

from hallubench.errors import HallubenchError


def generation_date() -> str:
    """UTC date; ``SOURCE_DATE_EPOCH`` pins it for reproducible builds."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    return moment.date().isoformat()


def size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return label
    return "100K<n<1M"


@dataclass
class CardInfo:
    """What the card says: YAML metadata plus a markdown body of provenance sections."""

    pretty_name: str
    license: str
    task_categories: list[str]
    summary: str
    sections: dict[str, str] = field(default_factory=dict)

    def render(self, n_rows: int) -> str:
        data = DatasetCardData(
            pretty_name=self.pretty_name,
            license=self.license,
            language=["en"],
            task_categories=self.task_categories,
            size_categories=[size_category(n_rows)],
            tags=["hallucination", "hallubench"],
        )
        body = "\n\n".join(f"## {title}\n\n{text.strip()}" for title, text in self.sections.items())
        return f"---\n{data.to_yaml()}\n---\n\n# {self.pretty_name}\n\n{self.summary.strip()}\n\n{body}\n"


def check_output_dir(out: Path, overwrite: bool) -> None:
    """Fail before any work when the output folder exists and may not be replaced."""
    if out.exists() and not overwrite:
        raise HallubenchError(f"{out} already exists (pass --overwrite to replace it)")


def save_test_set(rows: list[dict[str, Any]], features: datasets.Features, out: Path, card: CardInfo, overwrite: bool) -> None:
    """Save split ``test`` + README.md into a temporary sibling, then move it into place."""
    check_output_dir(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        test = datasets.Dataset.from_list(rows, features=features)
        datasets.DatasetDict({"test": test}).save_to_disk(str(tmp))
        (tmp / "README.md").write_text(card.render(len(rows)), encoding="utf-8")
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"[hallubench] wrote {len(rows)} rows to {out}", file=sys.stderr)


def push_test_set(out: Path, repo_id: str, private: bool = False) -> None:
    """Upload a saved test set and its card; the token comes from ``HF_TOKEN`` / the HF login."""
    try:
        datasets.load_from_disk(str(out)).push_to_hub(repo_id, private=private)
        DatasetCard((out / "README.md").read_text(encoding="utf-8")).push_to_hub(repo_id, repo_type="dataset")
    except Exception as exc:
        raise HallubenchError(f"push to {repo_id} failed ({type(exc).__name__}): {exc}; the local copy in {out} is complete") from exc
    print(f"[hallubench] pushed {out} to https://huggingface.co/datasets/{repo_id}", file=sys.stderr)
