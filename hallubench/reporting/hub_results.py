"""``hallubench report RESULTS --push-results REPO`` / ``--results-dir DIR``: results as the Hub's evaluation results
(https://huggingface.co/docs/hub/eval-results, "Adding Evaluation Results"), which the Hub shows on the model page and
on the leaderboards of the benchmark's ``eval.yaml`` (written by ``generate --push-to-hub``).

Per result (one model on one task, one judge setup): ``.eval_results/<name>.yaml``, a list with one entry per
leaderboard metric (``dataset.id``/``task_id``/``revision``, ``value``, ``date``, ``notes``; the format has no place
for a standard error, so ``notes`` carries it beside the judge and the set), and ``hallubench_results/<name>.json``,
the whole record the entries come from: value, stderr and item count per metric, the set's fingerprint, the judges'
public specs, the run settings and the hallubench version. Everything is built and checked before anything is
written; the push is one commit, so a refused push leaves the repo as it was. The token comes from ``HF_TOKEN`` only
and is written nowhere."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import MARKER, check_replaceable, write_text_atomic
from hallubench.core.provenance import software
from hallubench.core.specs import redact, redact_known, remember_secret
from hallubench.reporting.report import is_missing
from hallubench_generators.benchmark_yaml import HUB_DOCS, leaderboard_id, leaderboard_metrics

RESULTS_FOLDER = ".eval_results"  # huggingface_hub.constants.EVAL_RESULTS_FOLDER: where the Hub reads results
RECORDS_FOLDER = "hallubench_results"
COMMAND = "report"
YAML_MARK = f"# written by {MARKER} {COMMAND}"  # first line of each results YAML: a later report may replace it


@dataclass(frozen=True)
class Publication:
    """Where results go: a Hub repo (``repo_id`` and its type) or none (``--results-dir`` only), and the benchmark
    release that ``--benchmark REPO[@REVISION]`` names for every result (None: the one each result records)."""

    repo_id: str | None
    repo_type: str
    benchmark: str | None = None

    def file_url(self, path: str) -> str | None:
        """The Hub page of a file of the repo (its main branch); None when nothing is pushed."""
        if self.repo_id is None:
            return None
        from huggingface_hub import constants

        prefix = "datasets/" if self.repo_type == "dataset" else ""
        return f"{constants.ENDPOINT}/{prefix}{self.repo_id}/blob/main/{path}"


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-.").lower() or "unnamed"


def _release(row: Mapping[str, Any], publication: Publication) -> tuple[str, str]:
    """The benchmark dataset repo and pinned revision a result was made on: ``--benchmark`` when given, else the
    Hub repo and revision the result records (a local folder or an unpinned run is refused: the leaderboard could not
    say which set the value is on)."""
    recorded = row.get("dataset") or {}
    if publication.benchmark:
        repo, _, revision = publication.benchmark.partition("@")
        revision = revision or (recorded.get("revision") if recorded.get("location") == repo else "")
    else:
        repo, revision = str(recorded.get("location") or ""), str(recorded.get("revision") or "")
        if not repo or Path(repo).exists() or not _is_repo_id(repo):
            raise HallubenchError(f"{row['source']}: {row['task']} was evaluated on {repo or 'an unrecorded set'}, "
                                  "not a Hub release; pass --benchmark REPO@REVISION naming the release of that set "
                                  "(hallubench generate --push-to-hub)")
    if not revision or revision == "unpinned":
        raise HallubenchError(f"{row['source']}: {row['task']} on {repo} has no pinned revision; a leaderboard value "
                              "must name its set: pass --benchmark REPO@REVISION")
    return repo, str(revision)


def _is_repo_id(text: str) -> bool:
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(text)
    except HFValidationError:
        return False
    return "/" in text


def _utc(date: str) -> str:
    """A row's ``YYYY-MM-DD HH:MM`` (UTC) as ISO 8601."""
    return datetime.strptime(date, "%Y-%m-%d %H:%M").replace(tzinfo=timezone.utc).strftime("%Y-%m-%dT%H:%M:00Z")


def _notes(row: Mapping[str, Any], metric: str) -> str:
    """The setup line a leaderboard shows beside the value: judge, stderr and item count, set and version."""
    stderr = (row.get("stderr") or {}).get(metric)
    counted = (row.get("counted") or {}).get(metric)
    parts = [f"judge {row['judge']}", *([f"stderr {stderr:.4g}"] if not is_missing(stderr) else []),
             *([f"n {counted}"] if not is_missing(counted) else []), f"set {row['set']}",
             f"hallubench {_made_with(row)}"]
    return "; ".join(parts)


def _made_with(row: Mapping[str, Any]) -> str:
    """The hallubench version a result records (``hallubench score``), else the installed one (lm-eval's results
    file records none)."""
    return ((row.get("provenance") or {}).get("software") or {}).get("hallubench") or software()["hallubench"]


def _record(row: Mapping[str, Any], repo: str, revision: str, metrics: Sequence[str]) -> dict[str, Any]:
    """The whole record behind a result's entries (``hallubench_results/<name>.json``)."""
    return {
        "written_by": f"{MARKER} {COMMAND}",
        "format": HUB_DOCS,
        "model": row["model"],
        "task": row["task"],
        "benchmark": {"dataset": repo, "revision": revision},
        "set": {"fingerprint": (row.get("dataset") or {}).get("fingerprint"),
                "location": (row.get("dataset") or {}).get("location")},
        "n": row.get("n"),
        "metrics": {m: {"value": row.get(m), "stderr": (row.get("stderr") or {}).get(m),
                        "counted": (row.get("counted") or {}).get(m), "task_id": leaderboard_id(row["task"], m)}
                    for m in metrics},
        "judges": row.get("judges") or {},
        "settings": row.get("settings") or {},
        "hallubench_version": _made_with(row),
        "published_with": {"hallubench": software()["hallubench"]},
        "date": _utc(row["date"]),
        "source": Path(str(row["source"])).name,
    }


def _publishable(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The rows a leaderboard can show: judged task results (an lm-eval group has no leaderboard of its own)."""
    kept = []
    for row in rows:
        if row.get("members") or row.get("skipped"):
            why = "a group of tasks" if row.get("members") else "predict-only, not judged"
            print(f"[hallubench] not published: {row['model']} on {row['task']} ({why})", file=sys.stderr)
        else:
            kept.append(row)
    return kept


def results_files(rows: Sequence[Mapping[str, Any]], publication: Publication) -> dict[str, str]:
    """Repo path -> text of every file to write, built and checked whole before anything is written."""
    rows = _publishable(rows)
    if not rows:
        raise HallubenchError("no result to publish (only groups or predict-only runs)")
    models = sorted({str(row["model"]) for row in rows})
    if publication.repo_type == "model" and len(models) > 1:
        raise HallubenchError(f"a model repo holds one model's results; got {', '.join(models)} (publish each "
                              "model's results to its repo, or several to a dataset repo with --repo-type dataset)")
    files: dict[str, str] = {}
    for row in rows:
        repo, revision = _release(row, publication)
        metrics = [m.name for m in leaderboard_metrics(row["task"]) if not is_missing(row.get(m.name))]
        if not metrics:
            print(f"[hallubench] not published: {row['model']} on {row['task']} (no metric has a value)",
                  file=sys.stderr)
            continue
        name = "_".join(_slug(part) for part in (
            *([row["model"]] if publication.repo_type == "dataset" else []), row["task"], row["judge"]))
        yaml_path, record_path = f"{RESULTS_FOLDER}/{name}.yaml", f"{RECORDS_FOLDER}/{name}.json"
        if yaml_path in files:
            raise HallubenchError(f"two results of {row['model']} on {row['task']} with judge {row['judge']} "
                                  f"(one is {row['source']}); publish one")
        record_url = publication.file_url(record_path)
        entries = [{
            "dataset": {"id": repo, "task_id": leaderboard_id(row["task"], metric), "revision": revision},
            "value": row[metric],
            "date": _utc(row["date"]),
            **({"source": {"url": record_url, "name": "hallubench record"}} if record_url else {}),
            "notes": _notes(row, metric),
        } for metric in metrics]
        files[yaml_path] = f"{YAML_MARK}\n" + yaml.safe_dump(entries, sort_keys=False, allow_unicode=True, width=120)
        files[record_path] = json.dumps(_record(row, repo, revision, metrics), indent=2) + "\n"
    if not files:
        raise HallubenchError("no result to publish: no leaderboard metric has a value")
    remember_secret(os.environ.get("HF_TOKEN"))  # never written, even where a judge spec carried it
    return {path: redact_known(text) for path, text in files.items()}


def _replaceable(path: Path) -> bool:
    """Whether ``--results-dir`` may replace ``path``: absent, or written by ``hallubench report``."""
    if not path.exists():
        return True
    if path.suffix == ".yaml":
        return path.read_text(encoding="utf-8", errors="replace").startswith(f"{YAML_MARK}\n")
    try:
        check_replaceable(path, "--results-dir", COMMAND, overwrite=False)
    except HallubenchError:
        return False
    return True


def write_results(files: Mapping[str, str], folder: Path) -> None:
    """The files under ``folder`` as they would be in the repo; refused before any write when one would replace a
    file hallubench report did not write."""
    foreign = [path for path in files if not _replaceable(folder / path)]
    if foreign:
        raise HallubenchError(f"--results-dir {folder}: {foreign[0]} exists and was not written by hallubench report; "
                              "refusing to replace it")
    for path, text in files.items():
        write_text_atomic(folder / path, text)
    print(f"[hallubench] wrote {len(files)} files under {folder} ({RESULTS_FOLDER}/ in the Hub's format, "
          f"{RECORDS_FOLDER}/ the records)", file=sys.stderr)


def push_results(files: Mapping[str, str], publication: Publication) -> str:
    """Upload ``files`` to the repo in one commit with the token from ``HF_TOKEN``; the commit's URL."""
    from huggingface_hub import CommitOperationAdd, HfApi

    token = os.environ.get("HF_TOKEN", "")
    try:
        commit = HfApi(token=token).create_commit(
            repo_id=str(publication.repo_id), repo_type=publication.repo_type,
            operations=[CommitOperationAdd(path, text.encode("utf-8")) for path, text in files.items()],
            commit_message=f"Add hallubench evaluation results ({len(files) // 2} results)",
        )
    except Exception as exc:
        reason = " ".join(redact(f"{type(exc).__name__}: {exc}", [token]).split())
        raise HallubenchError(f"push of results to {publication.repo_id} failed ({reason}); nothing was "
                              "committed") from exc
    print(f"[hallubench] pushed {len(files) // 2} results to {commit.commit_url}", file=sys.stderr)
    return commit.oid


def publish(rows: Sequence[Mapping[str, Any]], push_to: str | None, repo_type: str, results_dir: Path | None,
            benchmark: str | None) -> None:
    """``report --push-results`` / ``--results-dir``: check the repo id, the token and every result first, then
    write the files locally (when asked) and push them (when asked)."""
    from hallubench_generators.cli import check_repo_id

    if push_to is not None:
        check_repo_id(push_to, "--push-results")
        if not os.environ.get("HF_TOKEN"):
            raise HallubenchError("--push-results needs a Hub token with write access in HF_TOKEN")
    if benchmark is not None:
        check_repo_id(benchmark.partition("@")[0], "--benchmark")
    publication = Publication(push_to, repo_type, benchmark)
    files = results_files(rows, publication)
    if results_dir is not None:
        write_results(files, results_dir)
    if push_to is not None:
        push_results(files, publication)
