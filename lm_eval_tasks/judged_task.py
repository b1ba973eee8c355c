"""The ConfigurableTask of every hallubench benchmark. Its metric list comes from the registry; its
filter judges all responses of the task at once (each item's chain streamed under the judges' bounded
pools) and hands one judged record per doc, as a JSON string, to ``process_results``. The records,
raw judge replies included, land in lm-eval's samples log as ``filtered_resps`` (lm-eval stringifies
filtered responses, so JSON keeps them machine-readable). The task config's metadata records the
judge specs and the exact test set (source + content fingerprint), so results JSON name both."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lm_eval.api.filter import Filter, FilterEnsemble
from lm_eval.api.task import ConfigurableTask
from lm_eval.filters.selection import TakeFirstFilter

from hallu_metrics.contract import Benchmark, unreadable_banner
from hallu_metrics.judges import DEFAULT_JUDGE, JudgeSet, failed_verdicts
from hallu_metrics.judges.accounting import AccountedJudgeSet, accounting, roles_in_use
from hallu_metrics.judges.fingerprint import judge_prompts_hash
from hallu_metrics.judges.kinds import JUDGE_OPTIONS, check_judge_spec
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import ALL_CHECKS, benchmark_for_task
from hallu_metrics.settings import RunSettings, resolve_settings, task_setting
from hallubench.core.backends.budget import RUN_BUDGET
from hallubench.core.backends.cache import default_cache_path
from hallubench.core.backends.hf_local import ALLOWED_KEYS as HF_KEYS
from hallubench.core.backends.openai_batch import ALLOWED_KEYS as BATCH_KEYS
from hallubench.core.backends.openai_http import ALLOWED_KEYS as OPENAI_KEYS
from hallubench.core.errors import HallubenchError, TaskRefusal, refused_plainly
from hallubench.core.outputs import write_text_atomic
from hallubench.core.provenance import dataset_fingerprint
from hallubench.core.specs import redact_known
from hallubench_tasks import lm_eval_stderr
from hallubench_tasks.settings import PROBE_TIMEOUT_KEY, probe_timeout

FILTER_NAME = "judged"
EMBEDDED_NOTE = "rule (embedded offline stand-in, not the paper's LLM judge)"

lm_eval_stderr.install()


class JudgeFilter(Filter):
    """Runs a benchmark's judging chain over every (response, doc) pair of the task."""

    def __init__(self, benchmark: Benchmark, specs: dict[str, str], task: str, settings: RunSettings | None = None,
                 metadata: dict | None = None):
        self.benchmark, self.specs, self.task = benchmark, specs, task
        self.settings = settings or resolve_settings(benchmark, task, {}, flags=specs)
        self.metadata = metadata  # the task config's metadata: the judging's accounting is added to it

    def apply(self, resps, docs) -> list[str]:
        settings = self.settings.record()  # once: public judge specs are parsed (template files hashed) to build it
        return [json.dumps({**record, "settings": settings}, ensure_ascii=False)
                for record in self.records(list(resps), list(docs))]

    def records(self, resps: list[str], docs: list[dict]) -> list[dict]:
        """One judged record per response (unjudged with ``judge: none`` or when judging raised)."""
        if self.specs.get("judge") == "none" and self.benchmark.judge_roles:
            return [{"response": r, "outcome": "unjudged", "judge": "none"} for r in resps]
        try:
            records, stats = self.judge(resps, docs)
        except Exception as exc:  # never lose the generations: saved for `hallubench score`, records unjudged
            return self.recover(resps, docs, exc)
        for warning in self.benchmark.run_warnings(records) if self.benchmark.run_warnings else ():
            print(f"[hallubench] {self.task}: warning: {warning}", file=sys.stderr)
        failed = len(failed_verdicts(records))
        share, items = self.benchmark.unreadable_items(records, list(docs))
        if failed or items:  # the responses are saved whether or not lm-eval logs samples (--log_samples)
            path = self.save(resps, docs, records)
            advice = (
                f"Re-judge the saved responses with `hallubench score --task {self.task} --samples "
                f"{path or f'<samples_{self.task}_*.jsonl>'} ...` (--retry-unparseable re-asks unreadable replies; "
                f"finished judge calls are cached). calls={stats}"
            )
            metric = self.benchmark.unreadable_metric or "judge_unparseable_rate"
            print(unreadable_banner(self.task, metric, share, items, len(records), failed, advice),
                  file=sys.stderr)
        return records

    def judge(self, resps: list[str], docs: list[dict]) -> tuple[list[dict], dict]:
        """Judged records and call counts; on Ctrl-C while judging, the responses are saved first."""
        budget = RUN_BUDGET.get()  # hallubench eval --max-calls / --max-cost
        judges = AccountedJudgeSet(self.specs, settings=self.settings, budget=budget)
        start = time.perf_counter()
        try:
            records = judge_responses(self.benchmark, resps, docs, judges, desc=f"judge {self.task}")
            stats = judges.report()
            if budget is not None and self.metadata is not None:
                self.metadata["hallubench_budget"] = budget.report([failed_verdicts([r]) for r in records])
            if self.metadata is not None:  # lm-eval dumps the config after its filters ran: results JSON carry it
                self.metadata["hallubench_accounting"] = accounting(
                    judges, roles_in_use(self.benchmark.judge_roles, self.specs), time.perf_counter() - start)
                # each metric's item count (lm-eval keeps none for metrics some items do not count toward)
                self.metadata["hallubench_counted"] = self.benchmark.summarize(records, docs)["counted"]
        except KeyboardInterrupt:
            self.save(resps, docs, [unjudged_record(r, "interrupted while judging") for r in resps])
            raise
        finally:
            judges.close()
        return records, stats

    def recover(self, resps: list[str], docs: list[dict], exc: Exception) -> list[dict]:
        """Judging raised after generation: every record unjudged with the error, the responses saved."""
        error = f"{type(exc).__name__}: {exc}"
        records = [unjudged_record(r, f"judging failed: {error}") for r in resps]
        path = self.save(resps, docs, records)
        JUDGING_FAILURES.append((self.task, path, error))
        print(f"\n[hallubench] {self.task}: JUDGING FAILED after generation ({error}); every record is unjudged.",
              file=sys.stderr)
        return records

    def save(self, resps: list[str], docs: list[dict], records: Sequence[dict]) -> Path | None:
        """Write the responses in lm-eval's samples-line shape (``doc``, ``resps``, ``filtered_resps``) to
        ``unjudged/samples_<task>_<time>.jsonl`` in the run's output folder, and say where; None if it cannot be
        written."""
        folder = run_output_folder() / "unjudged"
        path = folder / f"samples_{self.task}_{time.strftime('%Y%m%dT%H%M%S')}_{os.getpid()}.jsonl"
        settings = self.settings.record()
        lines = [
            json.dumps({"doc_id": i, "doc": doc, "resps": [[resp]],
                        "filtered_resps": [json.dumps({**record, "settings": settings})],
                        "filter": FILTER_NAME}, ensure_ascii=False, default=str)
            for i, (resp, doc, record) in enumerate(zip(resps, docs, records))
        ]
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, "\n".join(lines) + "\n")
        except OSError as exc:
            print(f"[hallubench] {self.task}: cannot save the model's responses to {path} ({exc}); they are only in "
                  "lm-eval's samples log (--log_samples)", file=sys.stderr)
            return None
        print(f"[hallubench] {self.task}: the model's {len(lines)} responses are saved in {path}; judge them with "
              f"`hallubench score --task {self.task} --samples {path} --judge SPEC --out RESULT.json`",
              file=sys.stderr)
        return path


def run_output_folder(argv: Sequence[str] | None = None) -> Path:
    """Where this run writes: lm-eval's ``--output_path`` (its folder when it names a results ``.json``); the call
    cache's folder when none was given or the process is not lm_eval's command."""
    value = lm_eval_option(("--output_path", "-o"), argv)
    if not value:
        return default_cache_path().parent
    path = Path(value)
    return path.parent if path.suffix == ".json" else path


JUDGING_FAILURES: list[tuple[str, Path | None, str]] = []  # (task, saved responses, error) of judging that raised


def unjudged_record(response: str, reason: str) -> dict[str, Any]:
    """The record of a response no judge looked at, saying why."""
    return {"response": response, "outcome": "unjudged", "judge": "none", "unjudged_reason": reason}


class UnjudgedFilter(Filter):
    """``--predict_only``: no judge is built or called; each record says it is unjudged and how to judge it, and
    carries the run's settings for ``hallubench score``."""

    def __init__(self, task: str, settings: RunSettings):
        self.reason = f"--predict_only: not judged; judge with `hallubench score --task {task} --samples ...`"
        self.settings = settings

    def apply(self, resps, docs) -> list[str]:
        settings = self.settings.record()
        return [json.dumps({**unjudged_record(r, self.reason), "settings": settings}, ensure_ascii=False)
                for r in resps]


SPEC_KEYS = frozenset({*OPENAI_KEYS, *BATCH_KEYS, *HF_KEYS, *JUDGE_OPTIONS})
JUDGE_ONLY_KEYS = frozenset({"concurrency", "api_key_env", "backoff", "dead_after", *JUDGE_OPTIONS})  # no model arg


def _cli_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def cut_spec_keys(spec: str, metadata: Mapping[str, Any], model_args: Mapping[str, Any] | None = None) -> list[str]:
    """The metadata keys that are pieces of a judge spec cut by lm-eval's comma splitting: spec keys, except those the
    cut spec already holds and those lm-eval copied from ``--model_args`` (the model under test's own ``base_url``,
    ``model``, ...), read from lm-eval's command line when not given."""
    held = {part.partition("=")[0] for part in spec.partition(":")[2].split(",")}
    copied = lm_eval_model_args() if model_args is None else model_args
    return [k for k in metadata if k in SPEC_KEYS and k not in held
            and (k not in copied or str(copied[k]) != str(metadata[k]))]


def lm_eval_model_args(argv: Sequence[str] | None = None) -> dict[str, str]:
    """``--model_args k=v,...`` of the lm_eval process this task runs in (empty elsewhere or when given as JSON)."""
    text = lm_eval_option(("--model_args",), argv) or ""
    if text.strip().startswith("{"):
        try:
            return {str(k): str(v) for k, v in json.loads(text).items()}
        except (ValueError, AttributeError):
            return {}
    return dict(part.partition("=")[::2] for part in text.split(",") if "=" in part)


def lm_eval_option(names: Sequence[str], argv: Sequence[str] | None = None) -> str | None:
    """The value of one of ``names`` on lm_eval's command line (``hallubench eval`` runs lm-eval's CLI the same way);
    None when absent or when this process is not lm_eval's command (a script calling ``simple_evaluate``)."""
    args = list(sys.argv if argv is None else argv)
    program = args[0] if args else ""
    if not (Path(program).name.startswith(("lm_eval", "lm-eval")) or program.endswith(f"lm_eval{os.sep}__main__.py")):
        return None
    for i, arg in enumerate(args):
        if arg in names and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(tuple(f"{name}=" for name in names)):
            return arg.partition("=")[2]
    return None


def comma_split_hint(key: str, spec: str, metadata: Mapping[str, Any], stray: Sequence[str]) -> str:
    """Why a judge spec arrived cut and how to pass it whole (JSON metadata)."""
    whole = ",".join([spec, *(f"{k}={_cli_value(metadata[k])}" for k in stray)])
    return (f"lm-eval splits `--metadata k=v,k=v` at every comma, so {key}={spec!r} arrived cut and "
            f"{', '.join(stray)} as metadata keys of their own: pass the judge spec as JSON metadata, e.g. "
            f"--metadata '{json.dumps({key: whole})}'")


def check_spec(spec: str, source: str, metadata: Mapping[str, Any]) -> None:
    """Validate a whole judge spec (kind, keys, values, options; no network), and detect a spec cut by lm-eval's
    comma splitting of ``--metadata`` (spec keys such as ``model`` / ``concurrency`` as metadata keys of their own)."""
    key = source.removeprefix("--metadata ")
    cut = source.startswith("--metadata") and "," not in spec and ":" in spec
    stray = cut_spec_keys(spec, metadata) if cut else []
    try:
        check_judge_spec(spec, checks=ALL_CHECKS)
    except HallubenchError as exc:
        hint = f"; {comma_split_hint(key, spec, metadata, stray)}" if stray else ""
        raise HallubenchError(f"{source}: {exc}{hint}") from exc
    judge_only = [k for k in stray if k in JUDGE_ONLY_KEYS]
    if judge_only:
        raise HallubenchError(f"{source}: {comma_split_hint(key, spec, metadata, judge_only)}")


def probe_judges(specs: Mapping[str, str], timeout: float, task: str) -> None:
    """Each distinct ``openai:`` judge answers ``GET /models`` within ``timeout`` seconds (one line otherwise)."""
    for spec in dict.fromkeys(specs.values()):
        try:
            check_judge_spec(spec, reach_timeout=timeout, checks=ALL_CHECKS)
        except HallubenchError as exc:
            raise HallubenchError(
                f"{task}: {exc} (checked before the model runs; --metadata {PROBE_TIMEOUT_KEY}=0 or "
                "HALLUBENCH_JUDGE_PROBE_TIMEOUT=0 switches this check off)"
            ) from exc


def given_judge_specs(benchmark: Benchmark, metadata: Mapping[str, Any], task: str) -> dict[str, str]:
    """Role -> judge spec given in ``--metadata``/env, each validated whole (see ``check_spec``)."""
    specs: dict[str, str] = {}
    for role in benchmark.judge_roles:
        spec, source = task_setting(metadata, role, task)
        if spec is not None:
            check_spec(spec, source, metadata)
            specs[role] = spec
    return specs


def judge_specs(benchmark: Benchmark, metadata: Mapping[str, Any], task: str) -> dict[str, str]:
    """Role -> judge spec from ``--metadata``/env, each validated whole before the model runs; the embedded
    ``rule`` judge (announced) when none is given."""
    specs = given_judge_specs(benchmark, metadata, task)
    if benchmark.judge_roles and "judge" not in specs:
        note = EMBEDDED_NOTE if benchmark.default_judge == DEFAULT_JUDGE else benchmark.default_judge
        print(f"[hallubench] {task}: no judge given (--metadata judge=SPEC); judge: {note}", file=sys.stderr)
        specs["judge"] = benchmark.default_judge
    return specs or {"judge": "none"}


class RecordMetrics:
    """lm-eval ``process_results``: the per-sample metric values of one judged record."""

    def __init__(self, benchmark: Benchmark):
        self.benchmark = benchmark
        self.__name__ = f"{benchmark.name}.sample_metrics"

    def __call__(self, doc: dict, results: list) -> dict[str, float | None]:
        return dict(self.benchmark.sample_metrics(json.loads(results[0]), doc))


class JudgedTask(ConfigurableTask):
    """Metric list from the registry, the judging filter, and provenance in the task metadata. Zero-shot only
    (``num_fewshot`` > 0 is refused: shots would come from the test split); every judge spec is validated at load
    and ``openai:`` judges are probed just before generation; ``--predict_only`` builds and calls no judge; the
    request cache (``--cache_requests``) is keyed by the test set's content."""

    def __init__(self, config: dict[str, Any]):
        with refused_plainly():  # plain lm_eval prints a refusal as one line, not a traceback
            self._build(config)

    def _build(self, config: dict[str, Any]) -> None:
        config = {k: v for k, v in config.items() if k != "class"}
        task = config["task"]
        benchmark = benchmark_for_task(task)
        early = config.get("metadata") or {}
        specs = judge_specs(benchmark, early, task)  # before the data loads and the model runs
        self._probe_timeout = probe_timeout(early, task)
        self._predict_only = False
        config["dataset_kwargs"] = {"task": task, **(config.get("dataset_kwargs") or {})}
        config["metric_list"] = benchmark.lm_eval_metric_list()
        config["process_results"] = RecordMetrics(benchmark)
        super().__init__(config=config)
        metadata = self.config.metadata if self.config.metadata is not None else {}
        for key, value in metadata.items():  # lm-eval writes it into its results JSON: no URL credentials
            if isinstance(value, str):
                metadata[key] = redact_known(value)
        self.config.metadata = metadata
        self._benchmark, self._specs = benchmark, specs
        judges = JudgeSet(specs)
        metadata["hallubench_judges"] = judges.public_specs()
        metadata["hallubench_judge_prompts_hash"] = judge_prompts_hash(benchmark)
        if specs.get("judge") == DEFAULT_JUDGE and benchmark.judge_roles:
            metadata["hallubench_judge_note"] = EMBEDDED_NOTE
        location, source = task_setting(metadata, "dataset", task)
        self._set_fingerprint = dataset_fingerprint(self.dataset["test"])
        metadata["hallubench_dataset"] = {
            "location": location or "official download",
            "from": source if location else "default",
            "revision": task_setting(metadata, "dataset_revision", task)[0] or "unpinned",
            "fingerprint": self._set_fingerprint,
        }
        stated = {**(self.config.dataset_kwargs or {}), **metadata}
        self._settings = resolve_settings(benchmark, task, stated)
        metadata["hallubench_settings"] = self._settings.record()
        judge_filter = JudgeFilter(benchmark, specs, task, settings=self._settings, metadata=metadata)
        self._filters = [FilterEnsemble(name=FILTER_NAME, filters=[TakeFirstFilter, lambda: judge_filter])]

    def set_config(self, key: str, value: Any, update: bool = False) -> None:
        """lm-eval's ``--num_fewshot N`` arrives here: N > 0 is refused (the only split is the test set)."""
        if key == "num_fewshot" and value:
            raise TaskRefusal(f"{self.config.task}: {zero_shot_message(value)}")
        super().set_config(key, value, update)

    def override_metric(self, metric_name: str) -> None:
        """``--predict_only`` (metric ``bypass``): the judging filter is replaced by one that judges nothing."""
        super().override_metric(metric_name)
        if metric_name == "bypass" and self._benchmark.judge_roles:
            self._predict_only = True
            unjudged = UnjudgedFilter(self.config.task, self._settings)
            self._filters = [FilterEnsemble(name=FILTER_NAME, filters=[TakeFirstFilter, lambda: unjudged])]
            self.config.metadata["hallubench_judging"] = "skipped (--predict_only): judge with hallubench score"

    def build_all_requests(self, *, tokenizer_name: str = "", **kwargs: Any) -> None:
        """Probe the judges (unless ``--predict_only``), then lm-eval's request building, its cache key carrying the
        test set's fingerprint: a regenerated set under the same task name never reuses another set's prompts."""
        if not self._predict_only and self._probe_timeout:
            with refused_plainly():
                probe_judges(self._specs, self._probe_timeout, self.config.task)
        fingerprint = self._set_fingerprint.removeprefix("sha256:")[:16]
        super().build_all_requests(tokenizer_name=f"{tokenizer_name}-hallubench_set{fingerprint}", **kwargs)


def zero_shot_message(shots: Any) -> str:
    """Why ``--num_fewshot N`` is refused."""
    return (
        f"--num_fewshot {shots} refused: hallubench tasks are zero-shot, as in their papers, and have only a "
        "test split, so shots would be drawn from the test set itself (test questions with their gold answers in the "
        "prompts); drop --num_fewshot (run few-shot tasks of other suites in a separate lm_eval call)"
    )
