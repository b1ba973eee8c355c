"""``hallubench generate NAME ...``: shared options, then the named generator."""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from hallu_metrics.registry import BENCHMARKS
from hallubench.core.backends import CallCache, ModelClient, backend_spec, make_client
from hallubench.core.errors import HallubenchError
from hallubench.core.outputs import MARKER, check_writable_location, remove_stale_temporaries, write_text_atomic
from hallubench.core.provenance import dataset_fingerprint, file_checksum, software
from hallubench.core.specs import redact_known
from hallubench_generators.common.protocol import Generator, features_for, generator_prompts_hash
from hallubench_generators.common.publishing import (
    TaskReading,
    check_output_dir,
    foreign_content,
    push_test_set,
    save_test_set,
)

MAX_TRIALS = 1000  # sets of one stability check; each is a whole generated test set
TRIALS_MANIFEST = "trials.json"  # PARENT/trials.json of `generate --trials N`: the sets of one stability check
TRIAL_FOLDER = re.compile(r"trial-(-?\d+)")

def declared_help(module: str) -> str:
    """The ``HELP`` line a generator module declares, read from its source without importing it (``generate``'s
    parser lists every generator; importing them all would load torch and spaCy for one help line)."""
    base = Path(__file__).parent.joinpath(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == ["HELP"]:
            return ast.literal_eval(node.value)
    raise HallubenchError(f"generator hallubench_generators.{module} declares no HELP line")


def generator_modules() -> dict[str, str]:
    """Generator name -> its module under hallubench_generators, from the registry (each benchmark names its own)."""
    return {b.generator_name: b.generator for b in BENCHMARKS.values() if b.generator}


GENERATORS = generator_modules()


def generator(name: str) -> Generator:
    """The generator ``name``, imported on first use (only the one that runs loads its dependencies)."""
    return importlib.import_module(f"hallubench_generators.{GENERATORS[name]}")  # type: ignore[return-value]


def add_parsers(subparsers, only: str | None = None) -> None:
    """``generate NAME``: every name listed; each generator's options built only for ``only`` (all when None)."""
    generate = subparsers.add_parser("generate", help="materialise a fresh test set as a Hugging Face dataset")
    names = generate.add_subparsers(dest="generator_name", required=True, metavar="NAME")
    for name, module in GENERATORS.items():
        help_text = declared_help(module)
        parser = names.add_parser(name, help=help_text, description=help_text)
        if only is not None and name != only:
            continue
        generator(name).add_arguments(parser)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--out", type=Path, required=True, help="output folder (save_to_disk + README.md card)")
        parser.add_argument("--overwrite", action="store_true", help="replace an existing output folder")
        parser.add_argument("--trials", type=int, metavar="N",
                            help="N sets with seeds SEED..SEED+N-1 under OUT/trial-<seed>/ and OUT/trials.json, for "
                            "the stability check over regenerated sets (docs/stability.md)")
        parser.add_argument("--push-to-hub", metavar="REPO_ID",
                            help="also publish dataset + card to the Hub (token: HF_TOKEN); prints the commit to pin "
                                 "as dataset_revision and records it in the card's Release section")
        parser.add_argument("--private", action="store_true", help="with --push-to-hub: create a private repo")
        parser.add_argument(
            "--cache", type=Path, help="SQLite call cache (default $HALLUBENCH_CACHE or ~/.cache/hallubench)"
        )
        parser.set_defaults(handler=run)


def client_option(module: Generator) -> str | tuple[str, ...] | None:
    """The module's declared ``CLIENT_OPTION`` (generators/common/protocol.py); a module that does not declare it is
    refused,
    never given a default."""
    if not hasattr(module, "CLIENT_OPTION"):
        raise HallubenchError(f"generator {module.__name__} does not declare CLIENT_OPTION (the option naming its "
                              "model spec, a tuple of them, or None for a generator without model calls)")
    option = module.CLIENT_OPTION
    if not (option is None or isinstance(option, str)
            or (isinstance(option, tuple) and all(isinstance(name, str) for name in option))):
        raise HallubenchError(f"generator {module.__name__}: CLIENT_OPTION must be an option name, a tuple of them or "
                              f"None, not {option!r}")
    return option


def open_clients(module: Generator, args: argparse.Namespace) -> Any:
    """The cached clients a generator asked for with ``CLIENT_OPTION`` (one shared call cache):

    - an option name: one client for its spec, a list of clients for a list of specs (a spec given twice is one
      client, so a local model loads once), None when the option is empty;
    - a tuple of option names (several model roles): ``{option: client or None}``;
    - None: no clients."""
    option = client_option(module)
    if option is None:
        return None
    cache = CallCache(args.cache)
    made: dict[str, ModelClient] = {}

    def client(spec: str | None) -> ModelClient | None:
        if not spec:
            return None
        if spec not in made:
            made[spec] = make_client(backend_spec(spec), cache)
        return made[spec]

    if isinstance(option, tuple):
        return {name: client(getattr(args, name)) for name in option}
    specs = getattr(args, option)
    return [client(spec) for spec in specs] if isinstance(specs, list) and specs else client(specs or None)


def _opened(clients: Any) -> list[ModelClient]:
    values = clients.values() if isinstance(clients, dict) else clients if isinstance(clients, list) else [clients]
    return list(dict.fromkeys(c for c in values if c is not None))


_INPUT_OPTIONS = ("source", "wikirank_titles", "wikirank_scores", "conversations", "knowledge", "outside")


def reproducibility(module: Generator, args: argparse.Namespace) -> str:
    """The card section that lets a set be regenerated: software versions and git commit (the rules are code), the
    hash of what the generator sends (``generator_prompts_hash``), the command's options (specs without secrets)
    and the sha256 of every local input file."""
    lines = [f"- {name}: {version}" for name, version in software().items()]
    lines.append(f"- generator prompts: {generator_prompts_hash(module)} (requests and templates of "
                 f"{module.__name__}, decoding parameters included)")
    local = ("handler", "push_to_hub", "private", "overwrite", "out", "cache", "trials")  # where/how, not what it made
    options = {k: v for k, v in vars(args).items() if k not in local}
    lines.append(f"- options: `{redact_known(json.dumps(options, default=str, sort_keys=True))}`")
    for name in _INPUT_OPTIONS:
        value = getattr(args, name, None)
        if isinstance(value, (str, Path)) and Path(value).is_file():
            lines.append(f"- {name} {value}: {file_checksum(value)}")
    return "\n".join(lines)


class _TaskYaml(yaml.SafeLoader):
    """Reads an lm-eval task YAML, its ``!function`` values as None (only plain settings and ``include`` are wanted)."""


_TaskYaml.add_multi_constructor("!", lambda loader, suffix, node: None)


def task_config_value(task: str, key: str) -> Any:
    """A setting of an lm-eval task's YAML (its own, else its includes', as lm-eval merges them), read from the
    installed task folder; None when neither sets it."""
    spec = importlib.util.find_spec("hallubench_tasks")  # located, not imported: generators sit beside the tasks
    folder = Path(next(iter(spec.submodule_search_locations or []))) if spec else None
    found = sorted(folder.rglob(f"{task}.yaml")) if folder else []
    if not found:
        raise HallubenchError(f"no lm-eval YAML for task {task} under the installed hallubench_tasks")
    path: Path | None = found[0]
    while path is not None:
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=_TaskYaml) or {}
        if key in config:
            return config[key]
        path = path.parent / config["include"] if config.get("include") else None
    return None


def task_dataset_kwargs(task: str) -> dict[str, Any]:
    """The ``dataset_kwargs`` of an lm-eval task's YAML (lm-eval hands them to the data loader, so they shape the
    docs)."""
    return dict(task_config_value(task, "dataset_kwargs") or {})


@contextmanager
def _default_settings() -> Iterator[None]:
    """No ``$HALLUBENCH_*`` setting in the environment for the duration (the card states the default settings)."""
    saved = {name: value for name, value in os.environ.items() if name.startswith("HALLUBENCH_")}
    for name in saved:
        del os.environ[name]
    try:
        yield
    finally:
        os.environ.update(saved)


def task_readings(name: str, benchmark_name: str) -> list[TaskReading]:
    """The lm-eval tasks that read a set of generator ``name`` (those of ``benchmark_name`` when the generator writes
    several benchmarks' sets), each with the docs it makes of the rows with its default settings."""
    readings = []
    for benchmark in BENCHMARKS.values():
        if benchmark.generator_name != name or (benchmark_name in BENCHMARKS and benchmark.name != benchmark_name):
            continue
        for task in benchmark.task_names:
            to_docs = benchmark.to_docs
            if to_docs is None:
                readings.append(TaskReading(task))
                continue
            options = {**task_dataset_kwargs(task), "task": task, "judge": "none"}  # judge none: no store is opened

            def docs(rows: Any, to_docs: Any = to_docs, options: dict[str, Any] = options) -> Any:
                with _default_settings():
                    return to_docs(rows, options)

            how = (f"the docs `{to_docs.__module__}.{to_docs.__name__}` makes of the rows with the task's default "
                   "settings (other settings may record another fingerprint)")
            readings.append(TaskReading(task, docs, how))
    return readings


def run(args: argparse.Namespace) -> int:
    module = generator(args.generator_name)
    benchmark_name = f"{args.generator_name}_{getattr(args, 'task', '')}"
    features = features_for(module, benchmark_name)
    readings = task_readings(args.generator_name, benchmark_name)
    if args.push_to_hub:
        check_repo_id(args.push_to_hub)  # before any generation: a typo must not cost the run
    if args.trials is not None:
        return run_trials(module, features, args, readings)
    check_output_dir(args.out, args.overwrite)
    clients = open_clients(module, args)
    try:
        rows, card = module.run(args, clients)
    finally:
        for client in _opened(clients):
            client.report()
    card.sections["Reproducibility"] = reproducibility(module, args)
    save_test_set(rows, features, args.out, card, args.overwrite, readings)
    if args.push_to_hub:
        push_test_set(args.out, args.push_to_hub, args.private)
    return 0


def check_repo_id(repo_id: str, option: str = "--push-to-hub") -> None:
    """Refuse a repo name given to ``option`` that the Hub would refuse (``NAME`` or ``NAMESPACE/NAME``), in one
    line."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as exc:
        reason = str(exc).strip().splitlines()[0]
        raise HallubenchError(f"{option} {repo_id!r}: not a valid Hub repo id ({reason})") from None


def trial_args(args: argparse.Namespace, seed: int) -> argparse.Namespace:
    """The options of one trial: exactly those of ``generate --seed SEED --out PARENT/trial-SEED``."""
    return argparse.Namespace(**{**vars(args), "seed": seed, "out": args.out / f"trial-{seed}", "trials": None})


def check_trials_parent(parent: Path, seeds: list[int], overwrite: bool) -> None:
    """Fail before any work when ``parent`` cannot receive the trials: a file; a non-empty folder without
    ``--overwrite``; with it, anything inside but ``trials.json`` written by ``hallubench generate`` and
    ``trial-<seed>`` test sets (so ``--overwrite`` never deletes what hallubench did not write)."""
    if parent.exists() and not parent.is_dir():
        raise HallubenchError(f"--out {parent} is a file; expected a folder for the trials")
    if parent.is_dir() and any(parent.iterdir()):
        if not overwrite:
            raise HallubenchError(f"{parent} already exists (pass --overwrite to replace its trials)")
        names = {TRIALS_MANIFEST, *(f"trial-{seed}" for seed in seeds),
                 *(e.name for e in parent.iterdir() if TRIAL_FOLDER.fullmatch(e.name))}
        for name in sorted(names):  # temporaries of killed runs
            remove_stale_temporaries(parent / name)
        for entry in sorted(parent.iterdir()):
            if entry.name == TRIALS_MANIFEST and _own_manifest(entry):
                continue
            reason = foreign_content(entry) if TRIAL_FOLDER.fullmatch(entry.name) and entry.is_dir() else "not a trial"
            if reason:
                raise HallubenchError(f"--out {parent} is not a hallubench trials folder ({entry.name}: {reason}); "
                                      "refusing to replace it")
    check_writable_location(parent, "--out")
    for seed in seeds:
        check_output_dir(parent / f"trial-{seed}", overwrite)


def _own_manifest(path: Path) -> bool:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return False
    return isinstance(data, dict) and data.get("written_by") == f"{MARKER} generate"


def run_trials(module: Generator, features: Any, args: argparse.Namespace, readings: list[TaskReading]) -> int:
    """``generate ... --trials N``: N sets from seeds SEED..SEED+N-1 (one set of clients and call cache for all), each
    written by ``save_test_set`` as ``generate --seed`` would, then the manifest, written last and atomically (a
    replaced parent loses its old manifest first, so no manifest ever names a set that is not there)."""
    if args.push_to_hub:
        raise HallubenchError("--push-to-hub with --trials is refused: publish one set at a time (generate --seed)")
    if not 1 <= args.trials <= MAX_TRIALS:
        raise HallubenchError(f"--trials {args.trials}: expected 1 to {MAX_TRIALS} (the papers use 3)")
    seeds = list(range(args.seed, args.seed + args.trials))
    parent: Path = args.out
    check_trials_parent(parent, seeds, args.overwrite)
    (parent / TRIALS_MANIFEST).unlink(missing_ok=True)
    clients = open_clients(module, args)
    sets = []
    try:
        for seed in seeds:
            one = trial_args(args, seed)
            rows, card = module.run(one, clients)
            card.sections["Reproducibility"] = reproducibility(module, one)
            save_test_set(rows, features, one.out, card, args.overwrite, readings)
            sets.append({"seed": seed, "folder": one.out.name, "n": len(rows),
                         "fingerprint": dataset_fingerprint(_test_split(one.out))})
    finally:
        for client in _opened(clients):
            client.report()
    for entry in parent.iterdir():  # sets of an earlier, replaced run with other seeds
        if TRIAL_FOLDER.fullmatch(entry.name) and entry.name not in {s["folder"] for s in sets}:
            shutil.rmtree(entry)
    local = ("handler", "cache", "out", "overwrite", "command", "push_to_hub", "private")
    options = {k: v for k, v in vars(args).items() if k not in local}
    manifest = {
        "written_by": f"{MARKER} generate",
        "benchmark": args.generator_name,
        "command": f"hallubench generate {args.generator_name} --trials {args.trials} --seed {args.seed} ...",
        "arguments": json.loads(redact_known(json.dumps(options, default=str, sort_keys=True))),
        "generator_prompts_hash": generator_prompts_hash(module),
        "seeds": seeds,
        "sets": sets,
    }
    write_text_atomic(parent / TRIALS_MANIFEST, json.dumps(manifest, indent=2) + "\n")
    print(f"[hallubench] wrote {len(sets)} trials and {parent / TRIALS_MANIFEST}", file=sys.stderr)
    return 0


def _test_split(folder: Path) -> Any:
    """The ``test`` split of a set written by ``save_test_set``."""
    import datasets

    return datasets.load_from_disk(str(folder))["test"]
