"""One Inspect ``@task`` per lm-eval task name of the registry (``hallu_metrics.registry.TASKS``: every benchmark and
variant), registered as ``hallubench/<task>`` when Inspect loads the package's ``inspect_ai`` entry point. A task's
options (``-T KEY=VALUE``) are its run settings (``hallu_metrics.settings.setting_keys``: ``dataset``,
``dataset_revision``, a judge spec per role, the benchmark's own options such as ``knowledge`` or ``retrieval``),
resolved by ``resolve_settings`` as the lm-eval task resolves its ``--metadata`` (``$HALLUBENCH_<KEY>`` included);
the rows come from the lm-eval task's loader, the prompt from its ``doc_to_text``, and the settings, judges and the
set's fingerprint are recorded in the log's task metadata."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai._util.package import get_installed_package_name
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from hallu_metrics.judges.fingerprint import judge_prompts_hash
from hallu_metrics.judges.kinds import check_judge_spec, judge_kind, public_spec
from hallu_metrics.registry import TASKS, benchmark_for_task
from hallu_metrics.settings import RunSettings, resolve_settings, setting_keys
from hallubench.core.errors import HallubenchError
from hallubench.core.provenance import dataset_fingerprint
from hallubench.core.specs import redact_known
from hallubench.inspect_tasks import DATASET_KEY, SETTINGS_KEY, grader
from hallubench.inspect_tasks.judging import epoch_mean, judge_scorer
from hallubench.inspect_tasks.task_config import task_config
from hallubench_tasks.dataset_loading import load
from hallubench_tasks.settings import PROBE_TIMEOUT_KEY, probe_timeout

PACKAGE = "hallubench"  # the entry point's name: Inspect loads it for task names `hallubench/<task>`


def judge_specs(settings: RunSettings, probe_seconds: float | None) -> dict[str, str]:
    """Role -> judge spec of the run, each validated whole before the model runs and its ``openai:`` servers probed
    within ``probe_seconds`` (``-T judge_probe_timeout``, as in the lm-eval task; the ``inspect`` kind is checked when
    its role is reached); ``{"judge": "none"}`` for a benchmark without judges."""
    specs = {role: str(settings[role]) for role in settings.judge_roles if settings[role]}
    for role, spec in specs.items():
        try:
            if judge_kind(spec) != grader.KIND:
                check_judge_spec(spec, reach_timeout=probe_seconds)
        except HallubenchError as exc:
            off = f" (checked before the model runs; -T {PROBE_TIMEOUT_KEY}=0 switches the reachability check off)"
            raise HallubenchError(f"{settings.task}: -T {role}: {exc}{off if probe_seconds else ''}") from exc
    if settings.judge_roles and settings.source("judge") == "default":
        print(f"[hallubench] {settings.task}: no judge given (-T judge=SPEC, or -T judge=inspect with --model-role "
              f"grader=MODEL); judge: {specs['judge']}", file=sys.stderr)
    return specs or {"judge": "none"}


def refuse_credentials(name: str, options: Mapping[str, Any]) -> None:
    """Inspect writes ``-T`` options into its log as given: an option holding URL credentials or a known API key is
    refused (name the key's environment variable with ``api_key_env=VAR``)."""
    for key, value in options.items():
        if isinstance(value, str) and redact_known(value) != value:
            raise HallubenchError(f"{name}: -T {key} holds credentials, and Inspect writes task options into its log: "
                                  "put the key in an environment variable and name it with api_key_env=VAR")


def rejoin_split_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Inspect's command line splits ``-T KEY=A,B`` at its commas (quoted or not) into a list; no hallubench option is
    a list, so such a value (a judge spec ``openai:base_url=URL,model=M``) is joined back as it was typed."""
    return {key: ",".join(map(str, value)) if isinstance(value, list) else value for key, value in options.items()}


def benchmark_task(name: str, options: Mapping[str, Any]) -> Task:
    """The Inspect task of lm-eval task ``name`` with the ``-T`` options given (unset ones are None)."""
    options = rejoin_split_options(options)
    refuse_credentials(name, options)
    benchmark = benchmark_for_task(name)
    config = task_config(name)
    stated = {**config.dataset_kwargs, **{k: v for k, v in options.items() if v not in (None, "")}}
    settings = resolve_settings(benchmark, name, stated)
    specs = judge_specs(settings, probe_timeout(stated, name))
    docs = load(name, **stated)["test"]
    location = settings.get("dataset")
    metadata = {
        SETTINGS_KEY: settings.record(),
        DATASET_KEY: {"location": location or "official download",
                      "from": settings.source("dataset") if location else "default",
                      "revision": settings.get("dataset_revision") or "unpinned",
                      "fingerprint": dataset_fingerprint(docs)},
        "hallubench_judges": {role: public_spec(spec) for role, spec in specs.items()},
        "hallubench_judge_prompts_hash": judge_prompts_hash(benchmark),
        "lm_eval_task_version": config.version,
    }
    samples = [Sample(id=i, input=config.prompt(doc), target=config.target(doc), metadata=doc)
               for i, doc in enumerate(docs)]
    return Task(dataset=MemoryDataset(samples, name=name), solver=generate(),
                scorer=judge_scorer(benchmark, name, specs, settings), epochs=Epochs(1, epoch_mean()),
                metadata=metadata,
                config=GenerateConfig(temperature=config.temperature, max_tokens=config.max_tokens))


def _task_function(name: str) -> Callable[..., Task]:
    """The ``@task`` of lm-eval task ``name``: keyword options named after its settings, all optional."""

    def build(**options: Any) -> Task:
        return benchmark_task(name, options)

    benchmark = benchmark_for_task(name)
    keys = dict.fromkeys((*setting_keys(benchmark), *((PROBE_TIMEOUT_KEY,) if benchmark.judge_roles else ())))
    build.__name__ = build.__qualname__ = name
    build.__doc__ = f"{benchmark.paper}: lm-eval task {name} of hallubench (options: {', '.join(keys)})."
    build.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=None) for key in keys],
        return_annotation=Task)
    # Inspect names a task of an installed package `<package>/<name>`, but takes this one for a local file when
    # `hallubench.egg-info` (left in the checkout by an editable install) shadows the install's metadata, as it
    # does when Inspect runs from the checkout: the name then states the package itself.
    local = get_installed_package_name(build) != PACKAGE
    return task(name=f"{PACKAGE}/{name}" if local else name)(build)


TASK_FUNCTIONS: dict[str, Callable[..., Task]] = {name: _task_function(name) for name in TASKS}
