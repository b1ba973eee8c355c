"""Checks ``hallubench eval`` makes before handing over to lm-eval, so that first-hour mistakes end in one line
within seconds instead of a traceback after the model has loaded (tens of seconds; minutes for a 70B model).

The arguments are read with lm-eval's own parser (same ``--tasks`` / ``--metadata`` / ``--model_args`` semantics,
``--model_args`` merged into the metadata as lm-eval does). For every hallubench task named in ``--tasks``, directly
or through a group or tag: its test set loads and has the benchmark's columns (``dataset_loading.load_rows``; a
missing local path is never taken for a Hub id when its parent folder exists), every judge spec is valid whole
(``judged_task.given_judge_specs``) and ``openai:`` judges answer (``GET /models``; not with ``--predict_only``,
which calls no judge). Also refused: ``--num_fewshot`` > 0 (zero-shot tasks), a chat API model without
``--apply_chat_template``, and a judge spec cut by lm-eval's comma splitting of ``k=v`` metadata. Unknown task
names get the closest known names."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import io
import json
import logging
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from hallubench.core.errors import HallubenchError

CHAT_MODELS = ("local-chat-completions", "openai-chat-completions")


def option_value(args: Sequence[str], name: str) -> str | None:
    """The value of ``--name VALUE`` or ``--name=VALUE`` in an argument list."""
    for i, arg in enumerate(args):
        if arg == name and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def parse_lm_eval_args(args: Sequence[str]) -> argparse.Namespace | None:
    """``args`` as lm-eval's ``run`` command reads them; None when lm-eval would refuse them (it then says why
    itself) or when they ask for help."""
    from lm_eval._cli.harness import HarnessCLI

    parser = HarnessCLI()._parser
    argv = list(args) if args[:1] and args[0] in ("run", "ls", "validate") else ["run", *args]
    quiet = logging.getLogger("lm_eval")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # lm-eval logs again when it parses the same arguments
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            namespace = parser.parse_args(argv)
    except (SystemExit, ValueError):
        return None
    finally:
        quiet.setLevel(level)
    return namespace if getattr(namespace, "command", None) == "run" else None


def check_tasks(names: Sequence[str], known: Sequence[str]) -> None:
    """Every requested task / group / tag exists; otherwise one line naming the closest known ones."""
    for name in names:
        if name not in known and not Path(name).exists():
            close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else " (list them with: lm_eval --tasks list)"
            raise HallubenchError(f"unknown task {name!r}{hint}")


def hallubench_tasks(names: Sequence[str], index: Mapping[str, Any], matches: Any) -> tuple[list[str], list[str]]:
    """(hallubench tasks named directly or through groups / tags, in order; names that are not hallubench's).
    ``index`` is a hallubench-only lm-eval task index, ``matches(name)`` its name / glob matcher."""
    from lm_eval.tasks._index import Kind

    from hallu_metrics.registry import TASKS

    found: list[str] = []

    def expand(name: str, seen: frozenset[str]) -> None:
        entry = index.get(name)
        if entry is None or name in seen:
            return
        if entry.kind == Kind.GROUP:
            for item in (entry.cfg or {}).get("task") or []:
                expand(item if isinstance(item, str) else str(item.get("task", "")), seen | {name})
        elif entry.kind == Kind.TAG:
            for task in sorted(entry.tags):
                expand(task, seen | {name})
        elif name in TASKS and name not in found:
            found.append(name)

    others = []
    for name in names:
        named = matches(name)
        if not named:
            others.append(name)
        for match in named:
            expand(match, frozenset())
    return found, others


def check_dataset_value(value: str, source: str) -> None:
    """A dataset location names an existing file / folder or looks like a Hub id (``owner/name``); a missing path
    whose first folder exists here (``sets/pwqa-2026-1`` beside ``sets/``) is a typo, not a Hub id."""
    path = Path(value).expanduser()
    if path.exists():
        return
    hub_like = value.count("/") == 1 and not value.startswith((".", "/", "~"))
    parent = path.parent
    if hub_like and not parent.is_dir():
        return
    hint = ""
    if parent.is_dir():
        close = difflib.get_close_matches(path.name, sorted(p.name for p in parent.iterdir()), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(str(parent / name) for name in close)}?" if close else ""
    kind = f" (a local path, not a Hub id: {parent}/ exists here)" if hub_like else " (and not a Hub id owner/name)"
    raise HallubenchError(f"{source}={value!r}: no such file or folder{kind}{hint}")


def check_dataset_keys(metadata: Mapping[str, Any]) -> None:
    """Each ``dataset*`` value names an existing path or looks like a Hub id (``owner/name``)."""
    for key, value in metadata.items():
        if key.startswith("dataset") and key != "dataset_revision" and isinstance(value, str):
            check_dataset_value(value, f"--metadata {key}")


def check_flags(namespace: argparse.Namespace) -> None:
    """lm-eval flags that cannot work with hallubench tasks, refused before any model loads."""
    from hallubench_tasks.judged_task import zero_shot_message

    shots = getattr(namespace, "num_fewshot", None)
    if shots:
        raise HallubenchError(zero_shot_message(shots))
    model = str(getattr(namespace, "model", None) or "hf")
    templated = getattr(namespace, "apply_chat_template", False)
    if (model in CHAT_MODELS or "-chat" in model) and not templated:
        raise HallubenchError(
            f"--model {model} sends chat messages: add --apply_chat_template (without it lm-eval stops after the model "
            "is set up: 'chat-completions require the --apply_chat_template flag')"
        )
    model_args = getattr(namespace, "model_args", None) or {}
    if not templated and isinstance(model_args, Mapping) and ships_chat_template(model_args):
        warn(f"--model {model}: the model ships a chat template but --apply_chat_template is not given: an instruct "
             "model then sees the bare prompt and continues it, and the continuation is scored; add "
             "--apply_chat_template (the papers prompt chat models through their template)")
    if not getattr(namespace, "log_samples", False) and not getattr(namespace, "predict_only", False):
        warn("without --log_samples lm-eval keeps no responses: hallubench saves a task's responses only when some "
             "of its verdicts fail or are unreadable (in OUTPUT_PATH/unjudged/); add --log_samples to be able to "
             "re-judge any task with hallubench score")


def warn(message: str) -> None:
    print(f"[hallubench] eval: warning: {message}", file=sys.stderr)


def ships_chat_template(model_args: Mapping[str, Any]) -> bool:
    """Whether the model (or tokenizer) that ``--model_args`` names carries a chat template, found without loading
    it: a local folder's ``tokenizer_config.json`` / ``chat_template.jinja``, a GGUF file's header, or the same
    files of a Hub model already in the local cache. Unknown (nothing local) counts as no."""
    name = str(model_args.get("tokenizer") or model_args.get("pretrained") or model_args.get("model") or "")
    if not name:
        return False
    folder = Path(name).expanduser()
    gguf = model_args.get("gguf_file")
    if gguf and (folder / str(gguf)).is_file():
        with (folder / str(gguf)).open("rb") as handle:  # GGUF metadata comes first in the file
            return b"tokenizer.chat_template" in handle.read(8 << 20)
    if folder.is_dir():
        template, config = folder / "chat_template.jinja", folder / "tokenizer_config.json"
    else:
        template, config = _cached(name, "chat_template.jinja"), _cached(name, "tokenizer_config.json")
    if template is not None and template.is_file():
        return True
    try:
        return bool(json.loads(config.read_text(encoding="utf-8")).get("chat_template")) if config else False
    except (OSError, ValueError, AttributeError):
        return False


def _cached(repo: str, filename: str) -> Path | None:
    """A file of a Hub model in the local cache (nothing is downloaded); None when absent or not a repo id."""
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(repo, filename)
    except ValueError:  # not a repo id (huggingface_hub's validation error is a ValueError)
        return None
    return Path(found) if isinstance(found, str) else None


def check_comma_split(args: Sequence[str], metadata: Mapping[str, Any]) -> None:
    """``--metadata judge=openai:base_url=...,model=...`` in lm-eval's ``k=v`` form: lm-eval cuts it at the commas."""
    from hallubench_tasks.judged_task import comma_split_hint, cut_spec_keys

    text = option_value(args, "--metadata") or ""
    if text.strip().startswith("{"):
        return
    for key, value in metadata.items():
        if (key == "judge" or key.startswith("judge_")) and isinstance(value, str) and ":" in value:
            stray = cut_spec_keys(value, metadata, model_args={})  # ``metadata`` is --metadata alone here
            if stray:
                raise HallubenchError(f"--metadata {key}: {comma_split_hint(key, value, metadata, stray)}")


def check_hallubench_task(task: str, metadata: Mapping[str, Any], probe: bool) -> None:
    """The test set of ``task`` loads with the benchmark's columns; its judge specs are valid (and answer)."""
    from hallu_metrics.registry import benchmark_for_task
    from hallu_metrics.settings import task_setting
    from hallubench_tasks.dataset_loading import load_rows
    from hallubench_tasks.judged_task import given_judge_specs, probe_judges
    from hallubench_tasks.settings import probe_timeout

    benchmark = benchmark_for_task(task)
    specs = given_judge_specs(benchmark, metadata, task)
    timeout = probe_timeout(metadata, task)
    for key in ("dataset", *benchmark.data_aliases):
        value, source = task_setting(metadata, key, task)
        if value is not None:
            check_dataset_value(value, source)
            break
    load_rows(task, dict(metadata))
    if probe and timeout:
        probe_judges(specs, timeout, task)


def check_eval_args(args: Sequence[str], tasks_dir: Path) -> bool:
    """Every check above, before lm-eval runs; True when every name in ``--tasks`` is a hallubench one (lm-eval
    then needs no index of its own tasks)."""
    from lm_eval.tasks import TaskManager

    namespace = parse_lm_eval_args(args)
    if namespace is None or not namespace.tasks or namespace.tasks == ["list"]:
        return False
    names = [n for name in namespace.tasks for n in name.split(",") if n]
    own = TaskManager(include_path=str(tasks_dir), include_defaults=False)
    tasks, others = hallubench_tasks(names, own.task_index, lambda name: own.match_tasks([name]))
    if others:
        everything = TaskManager(include_path=str(tasks_dir))
        check_tasks([n for n in others if not everything.match_tasks([n])], everything.all_tasks)
    if not tasks:
        return False
    check_flags(namespace)
    raw = namespace.metadata or {}
    check_comma_split(args, raw)
    metadata = {**(namespace.model_args or {}), **raw}  # lm-eval merges them the same way
    check_dataset_keys(raw)
    for task in tasks:
        check_hallubench_task(task, metadata, probe=not getattr(namespace, "predict_only", False))
    return not others


@contextlib.contextmanager
def own_tasks_only(active: bool) -> Iterator[None]:
    """While active, lm-eval's task index covers hallubench's folder only (not lm-eval's ~15k built-in YAML files:
    about 20 s saved per run); used when every name in ``--tasks`` is a hallubench one."""
    import lm_eval.tasks

    original = lm_eval.tasks.TaskManager
    if not active:
        yield
        return

    class OwnTasksManager(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs.setdefault("include_defaults", False)
            super().__init__(*args, **kwargs)

    lm_eval.tasks.TaskManager = OwnTasksManager
    try:
        yield
    finally:
        lm_eval.tasks.TaskManager = original
