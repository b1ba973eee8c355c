"""``hallubench jobs``: one independent ``hallubench eval`` per model x set, for a job runner to fan out.

No scheduler here: ``--print`` writes one shell command per job (for ``xargs -P``, GNU parallel or a cluster's job
file) and ``--index I`` runs job I in this process (``--index "$SLURM_ARRAY_TASK_ID"`` in a Slurm array). Each job
writes into its own folder ``OUTPUT_ROOT/<model>/<set>/``, keeps lm-eval's response cache there (``--use_cache``) and
shares hallubench's judge-call cache, so a job killed half-way and run again makes only the calls it had not
finished; a job whose folder already holds a results file is done and is skipped. ``hallubench report OUTPUT_ROOT``
then merges every job's newest results file into one report.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from hallubench.core.errors import HallubenchError

PER_JOB_FLAGS = ("--model_args", "--output_path", "--use_cache")  # jobs sets these itself
RESULTS_GLOB = "results_*.json"  # lm-eval's results file, one per run under --output_path/<model>/


@dataclass(frozen=True)
class Job:
    """One model on one set: the ``hallubench eval`` arguments and the folder it writes."""

    model_args: str
    dataset: str
    folder: Path
    eval_args: tuple[str, ...]

    def command(self) -> str:
        return shlex.join(["hallubench", "eval", *self.eval_args])


def read_list(path: Path, what: str) -> list[str]:
    """Non-blank lines of ``path`` without ``#`` comments (one model or set per line)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise HallubenchError(f"jobs: cannot read the {what} list {path} ({type(exc).__name__})") from exc
    entries = [line.split("#", 1)[0].strip() for line in lines]
    entries = [entry for entry in entries if entry]
    if not entries:
        raise HallubenchError(f"jobs: the {what} list {path} names nothing (one per line; # starts a comment)")
    return entries


def slug(text: str) -> str:
    """A folder name for a model or set: runs of characters other than letters, digits, ``.``, ``-`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9.-]+", "_", text).strip("_") or "_"


def model_name(model_args: str) -> str:
    """The ``pretrained=`` (local models) or ``model=`` (API models) value of a ``--model_args`` line, else the line."""
    pairs = dict(part.split("=", 1) for part in model_args.split(",") if "=" in part)
    return pairs.get("pretrained") or pairs.get("model") or model_args


def base_metadata(eval_args: list[str]) -> tuple[dict, list[str]]:
    """The shared ``--metadata`` (a JSON object) and the shared arguments without it."""
    rest, metadata, i = [], {}, 0
    while i < len(eval_args):
        arg = eval_args[i]
        if arg == "--metadata" or arg.startswith("--metadata="):
            text = arg.split("=", 1)[1] if "=" in arg else (eval_args[i + 1] if i + 1 < len(eval_args) else "")
            i += 1 if "=" in arg else 2
            try:
                metadata = json.loads(text)
            except json.JSONDecodeError:
                metadata = None
            if not isinstance(metadata, dict):
                raise HallubenchError(f"jobs: --metadata must be a JSON object (got {text!r})")
            continue
        rest.append(arg)
        i += 1
    return metadata, rest


def make_jobs(models: list[str], sets: list[str], output_root: Path, eval_args: list[str]) -> list[Job]:
    """Every model x set job (models outer), each with its own folder and ``--metadata`` naming its set."""
    given = [flag for flag in PER_JOB_FLAGS for arg in eval_args if arg == flag or arg.startswith(flag + "=")]
    if given:
        raise HallubenchError(f"jobs: {', '.join(dict.fromkeys(given))} is set per job (--models gives "
                              "--model_args, --output-root the folders); leave it out of the shared arguments")
    metadata, shared = base_metadata(eval_args)
    if "dataset" in metadata or "dataset_revision" in metadata:
        raise HallubenchError("jobs: --sets gives each job's dataset; leave dataset out of the shared --metadata")
    jobs, folders = [], {}
    for model_args in models:
        for line in sets:
            dataset, _, revision = line.partition(" ")
            revision = revision.strip() or None
            folder = output_root / slug(model_name(model_args)) / slug(dataset + (f"@{revision}" if revision else ""))
            if folder in folders:
                raise HallubenchError(f"jobs: {model_args!r} on {line!r} and {folders[folder]} would share the "
                                      f"folder {folder}; name them apart")
            folders[folder] = f"{model_args!r} on {line!r}"
            job_metadata = {**metadata, "dataset": dataset, **({"dataset_revision": revision} if revision else {})}
            args = (*shared, "--model_args", model_args, "--metadata", json.dumps(job_metadata),
                    "--output_path", str(folder), "--use_cache", str(folder / "lm-cache"))
            jobs.append(Job(model_args, dataset, folder, args))
    return jobs


def finished(job: Job) -> Path | None:
    """The newest results file a previous run of ``job`` wrote, if any."""
    found = sorted(job.folder.rglob(RESULTS_GLOB), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def results_files(paths: list[Path]) -> list[Path]:
    """``paths`` with each folder replaced by the newest lm-eval results file of every folder under it (a re-run job
    leaves several; the latest counts), in path order; files pass through."""
    out: list[Path] = []
    for path in paths:
        if not path.is_dir():
            out.append(path)
            continue
        newest: dict[Path, Path] = {}
        for found in path.rglob(RESULTS_GLOB):
            if found.parent not in newest or found.stat().st_mtime > newest[found.parent].stat().st_mtime:
                newest[found.parent] = found
        if not newest:
            raise HallubenchError(f"report: the folder {path} holds no lm-eval results file ({RESULTS_GLOB})")
        out.extend(newest[folder] for folder in sorted(newest))
    return out
