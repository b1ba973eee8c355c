"""Write a generated test set: ``save_to_disk`` + dataset card, atomically; optional Hub upload."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import yaml
from huggingface_hub import CommitOperationAdd, DatasetCard, DatasetCardData, HfApi, HfFileSystem
from huggingface_hub.repocard import metadata_load

from hallubench.core.backends.base import LONE_SURROGATE
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import check_writable_location, hidden_sibling, remove_stale_temporaries, write_text_atomic
from hallubench.core.provenance import dataset_fingerprint, software
from hallubench.core.specs import redact
from hallubench_generators.benchmark_yaml import EVAL_YAML, HUB_DOCS, eval_yaml, pin_metadata

# the shards save_to_disk writes, and what `datasets` adds when a reader (lm-eval, `hallubench eval`) maps or filters
# the saved split: cache-<fingerprint>.arrow, and tmpXXXXXXXX files of an interrupted map
SPLIT_DATA = re.compile(r"data-\d{5}-of-\d{5}\.arrow|cache-[0-9a-f]{16}(?:_\d{5}_of_\d{5})?\.arrow|tmp[0-9a-z_]{8}")


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


@dataclass(frozen=True)
class TaskReading:
    """An lm-eval task that reads a saved set: its name, and the docs it makes of the rows with its default settings
    (None: it reads the rows as they are) with what they add, said on the card."""

    task: str
    docs: Callable[[datasets.Dataset], datasets.Dataset] | None = None
    how: str = ""


@dataclass(frozen=True)
class SetFingerprints:
    """The content fingerprint of a saved set's rows, and what lm-eval and ``hallubench score`` results record for it
    (``hallubench_dataset.fingerprint`` / ``dataset.fingerprint``) by task: the fingerprint of the task's docs."""

    rows: str
    by_task: dict[str, tuple[str, str]] = field(default_factory=dict)  # task -> (fingerprint, what it is of)

    @classmethod
    def of(cls, test: datasets.Dataset, readings: Sequence[TaskReading] = ()) -> SetFingerprints:
        rows = dataset_fingerprint(test)
        by_task = {}
        for reading in readings:
            if reading.docs is None:
                by_task[reading.task] = (rows, "the rows as they are")
            else:
                by_task[reading.task] = (dataset_fingerprint(reading.docs(test)), reading.how)
        return cls(rows, by_task)

    def metadata(self) -> dict[str, Any]:
        """The card's machine-readable part (YAML front matter key ``hallubench``)."""
        results = {task: fingerprint for task, (fingerprint, _) in self.by_task.items()}
        return {"rows_fingerprint": self.rows, **({"results_fingerprint": results} if results else {})}

    def section(self) -> str:
        """The card's "Fingerprint" section."""
        text = (f"Content fingerprint of the `test` split's rows (`hallubench.core.provenance.dataset_fingerprint`): "
                f"`{self.rows}`.\n\nWhat results record as this set's fingerprint (lm-eval: "
                "`configs.<task>.metadata.hallubench_dataset.fingerprint`; `hallubench score`: `dataset.fingerprint` "
                "in its result JSON) is the fingerprint of the docs the task reads")
        if not self.by_task:
            return text + ": this one where a task reads the rows as they are."
        lines = [f"| {task} | `{fingerprint}` | {what} |" for task, (fingerprint, what) in self.by_task.items()]
        return text + ", by task:\n\n| task | recorded fingerprint | of |\n|---|---|---|\n" + "\n".join(lines)


@dataclass
class CardInfo:
    """What the card says: YAML metadata plus a markdown body of provenance sections."""

    pretty_name: str
    license: str
    task_categories: list[str]
    summary: str
    sections: dict[str, str] = field(default_factory=dict)

    def render(self, n_rows: int, fingerprints: SetFingerprints | None = None) -> str:
        """The README.md: metadata (with the set's fingerprints when given), title, summary and sections (then a
        "Fingerprint" section when given)."""
        extra = {"hallubench": fingerprints.metadata()} if fingerprints is not None else {}
        data = DatasetCardData(
            pretty_name=self.pretty_name,
            license=self.license,
            language=["en"],
            task_categories=self.task_categories,
            size_categories=[size_category(n_rows)],
            tags=["hallucination", "hallubench"],
            **extra,
        )
        sections = {**self.sections, **({"Fingerprint": fingerprints.section()} if fingerprints is not None else {})}
        body = "\n\n".join(f"## {title}\n\n{text.strip()}" for title, text in sections.items())
        return f"---\n{data.to_yaml()}\n---\n\n# {self.pretty_name}\n\n{self.summary.strip()}\n\n{body}\n"


DATASET_FILES = frozenset({"README.md", "dataset_dict.json"})
SPLIT_FILES = frozenset({"dataset_info.json", "state.json"})


def foreign_content(folder: Path) -> str | None:
    """Why ``folder`` is not a test set written by ``save_test_set`` (None when it is one): its card must
    carry the ``hallubench`` tag, ``dataset_dict.json`` must list its splits, and nothing else may be
    inside, so that ``--overwrite`` can never delete anything hallubench did not write."""
    readme, index = folder / "README.md", folder / "dataset_dict.json"
    if not readme.is_file() or not index.is_file():
        return "no README.md card and dataset_dict.json"
    try:
        tags = metadata_load(readme) or {}
        splits = json.loads(index.read_text(encoding="utf-8"))["splits"]
    except (OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        return f"unreadable card or dataset_dict.json ({type(exc).__name__})"
    if "hallubench" not in (tags.get("tags") or []):
        return "its card has no hallubench tag"
    for entry in sorted(folder.iterdir()):
        if entry.name in DATASET_FILES:
            continue
        if entry.name not in splits or not entry.is_dir() or entry.is_symlink():
            return f"it holds {entry.name}, which hallubench did not write"
        extra = [f.name for f in entry.iterdir() if f.name not in SPLIT_FILES and not SPLIT_DATA.fullmatch(f.name)]
        if extra:
            return f"it holds {entry.name}/{extra[0]}, which hallubench did not write"
    return None


def check_output_dir(out: Path, overwrite: bool) -> None:
    """Fail before any work when ``--out`` cannot receive a test set: it is a file, it is a non-empty
    folder and ``--overwrite`` is not given, ``--overwrite`` would replace a folder that is not a
    hallubench test set, or nothing can be written there."""
    if out.exists() and not out.is_dir():
        raise HallubenchError(f"--out {out} is a file; expected a folder for the test set")
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise HallubenchError(f"{out} already exists (pass --overwrite to replace it)")
        reason = foreign_content(out)
        if reason:
            raise HallubenchError(f"--out {out} is not a hallubench test set ({reason}); refusing to replace it")
    check_writable_location(out, "--out")


def without_lone_surrogates(value: Any) -> Any:
    """``value`` with lone surrogates in its strings replaced by U+FFFD (Arrow stores only valid UTF-8)."""
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {k: without_lone_surrogates(v) for k, v in value.items()}
    return value


def _move_into_place(tmp: Path, out: Path) -> None:
    """Replace ``out`` by ``tmp``; if the second rename fails the previous test set is put back."""
    if not out.exists():
        tmp.rename(out)
        return
    old = hidden_sibling(out, "old")
    out.rename(old)
    try:
        tmp.rename(out)
    except BaseException:
        old.rename(out)
        raise
    shutil.rmtree(old, ignore_errors=True)


def save_test_set(
    rows: list[dict[str, Any]], features: datasets.Features, out: Path, card: CardInfo, overwrite: bool,
    readings: Sequence[TaskReading] = (),
) -> None:
    """Save split ``test`` + README.md into a hidden temporary sibling, then move it into place; on any
    failure the temporary copy is removed and ``out`` is left as it was. Every row must have exactly the declared
    columns (``datasets`` would fill a missing one with null and drop none silently). The card states the rows'
    fingerprint and, for each of ``readings``, the fingerprint that task's results will record."""
    if not rows:
        raise HallubenchError("no item was accepted, so there is no test set; nothing was written")
    check_rows(rows, features)
    remove_stale_temporaries(out)
    check_output_dir(out, overwrite)
    tmp = hidden_sibling(out, "tmp")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        test = datasets.Dataset.from_list([without_lone_surrogates(row) for row in rows], features=features)
        datasets.DatasetDict({"test": test}).save_to_disk(str(tmp))
        (tmp / "README.md").write_text(card.render(len(rows), SetFingerprints.of(test, readings)), encoding="utf-8")
        _move_into_place(tmp, out)
    except OSError as exc:
        raise HallubenchError(f"cannot write the test set to {out}: {exc.strerror or exc}") from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"[hallubench] wrote {len(rows)} rows to {out}", file=sys.stderr)


def check_rows(rows: list[dict[str, Any]], features: datasets.Features) -> None:
    """Refuse rows whose columns differ from the declared Features: a generator bug, named with the first row."""
    declared = set(features)
    for number, row in enumerate(rows):
        missing, undeclared = sorted(declared - set(row)), sorted(set(row) - declared)
        if missing or undeclared:
            raise HallubenchError(f"generated row {number} does not match the declared columns (missing: {missing}, "
                                  f"undeclared: {undeclared}); nothing was written")


PUSH_KEYS = ("configs", "dataset_info")  # the card metadata datasets' push_to_hub writes: how the Hub loads the data


def merged_card(pushed: str, card: str) -> str:
    """The README.md of a release: the metadata the data push wrote (``configs``, ``dataset_info``, and what an
    earlier card of the repo had) with the test set card's own metadata over it, then the card's body."""
    ours = DatasetCard(card)
    theirs = DatasetCard(pushed).data.to_dict()
    metadata = {**theirs, **{k: v for k, v in ours.data.to_dict().items() if k not in PUSH_KEYS}}
    ours.data = DatasetCardData(**metadata)
    return ours.content


def release_section(repo_id: str, revision: str, url: str) -> str:
    """The local card's record of a push: where the release is and how to evaluate on exactly it."""
    return (f"## Release\n\n- Hub: [{repo_id}]({url}/tree/{revision})\n- revision: `{revision}`\n"
            f"- evaluate on it: `{pin_metadata(repo_id, revision)}`\n")


def card_summary(card: str) -> str:
    """The summary of a set card: its body between the title and the first section."""
    body = DatasetCard(card).text.split("\n## ", 1)[0].strip()
    return body.split("\n", 1)[1].strip() if body.startswith("# ") and "\n" in body else body


def push_test_set(out: Path, repo_id: str, private: bool = False) -> str:
    """Upload a saved test set, then in one more commit its card merged into the README.md the upload wrote and the
    Hub's benchmark ``eval.yaml`` (pinned to the data commit, whose rows the release keeps); record the final commit
    in the local card's "Release" section and return it. huggingface_hub reads the token (``HF_TOKEN`` or its login);
    hallubench never writes it."""
    card = (out / "README.md").read_text(encoding="utf-8")
    try:
        data = datasets.load_from_disk(str(out)).push_to_hub(repo_id, private=private)
        repo_id = data.repo_url.repo_id  # with the namespace the Hub filled in
        pushed = HfFileSystem().read_text(f"datasets/{repo_id}@{data.oid}/README.md", encoding="utf-8")
        benchmark = eval_yaml(DatasetCard(card).data.to_dict(), card_summary(card), repo_id, data.oid,
                              software()["hallubench"])
        final = HfApi().create_commit(
            repo_id=repo_id, repo_type="dataset", parent_commit=data.oid,
            commit_message="Add the hallubench dataset card and the benchmark's eval.yaml",
            operations=[CommitOperationAdd("README.md", merged_card(pushed, card).encode("utf-8")),
                        CommitOperationAdd(EVAL_YAML, benchmark.encode("utf-8"))],
        )
    except Exception as exc:
        reason = " ".join(redact(f"{type(exc).__name__}: {exc}", [os.environ.get("HF_TOKEN", "")]).split())
        raise HallubenchError(f"push to {repo_id} failed ({reason}); the local copy in {out} is complete") from exc
    url = str(final.repo_url)
    print(f"[hallubench] pushed {out} to {url} at revision {final.oid}, with {EVAL_YAML} declaring it a Hub "
          f"benchmark ({HUB_DOCS})", file=sys.stderr)
    write_text_atomic(out / "README.md", f"{card.rstrip()}\n\n{release_section(repo_id, final.oid, url)}")
    print(f"[hallubench] recorded in the Release section of {out / 'README.md'}; next, every model on this release: "
          f"hallubench eval --model ... --tasks ... {pin_metadata(repo_id, final.oid)}", file=sys.stderr)
    return final.oid
