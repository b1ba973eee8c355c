"""The embedded default's tasks come from the registry's metadata (``Benchmark.about.offline``), not a hand-written
list (scripts/embedded_default.py ``plan``, read by scripts/run_embedded_default.sh)."""

from __future__ import annotations

import importlib.util
from dataclasses import replace
from pathlib import Path

import pytest

from hallu_metrics import registry

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def driver():
    spec = importlib.util.spec_from_file_location("embedded_default", SCRIPTS / "embedded_default.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_plan_is_one_greedy_task_per_offline_runnable_benchmark():
    plan = driver().offline_plan(["generatedentities"])
    offline = {b.name for b in registry.BENCHMARKS.values() if b.about.offline}
    planned = [task for tasks in plan.values() for task in tasks]
    assert sorted(registry.TASKS[task].name for task in planned) == sorted(offline)
    assert "wildhallucinations_greedy" in plan["long"] and "wildhallucinations" not in planned  # greedy variant
    assert plan["short"][:1] == ["precisewikiqa"] and plan["generatedentities"] == ["generatedentities"]
    assert "plan --own-step generatedentities" in (SCRIPTS / "run_embedded_default.sh").read_text()


def test_a_benchmark_marked_offline_joins_the_plan_and_one_marked_online_leaves_it(monkeypatch):
    benchmarks = dict(registry.BENCHMARKS)
    for name, offline in (("simpleqa_hallu", True), ("mixedentities", False)):
        benchmarks[name] = replace(benchmarks[name], about=replace(benchmarks[name].about, offline=offline))
    monkeypatch.setattr(registry, "BENCHMARKS", benchmarks)
    plan = driver().offline_plan([])
    assert "simpleqa_hallu" in plan["short"] and "mixedentities" not in plan["short"]


def test_an_offline_benchmark_without_a_greedy_task_is_refused(monkeypatch):
    wild = registry.BENCHMARKS["wildhallucinations"]
    monkeypatch.setitem(registry.BENCHMARKS, "wildhallucinations", replace(wild, tasks=("wildhallucinations",)))
    with pytest.raises(SystemExit, match="wildhallucinations is offline-runnable but none of its tasks decodes"):
        driver().offline_plan([])
