"""Provenance prompt hashes cover what is sent (issue #23): a benchmark's ``judge_prompts_hash`` covers the rendered
conversation, reminder, decoding parameters and reader of every check its judging chain may ask, wherever the check
is defined; a dataset card's generator hash covers the generator's requests and templates. Comments and docstrings
count in neither (no source text is read)."""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
from dataclasses import replace
from typing import Any

import pytest
from support import task_manager
from test_metric_paths import CASES, ScriptedJudge

from hallu_metrics.benchmarks import longwiki as longwiki_benchmark
from hallu_metrics.benchmarks.faithfulness import BASELINE_KEY
from hallu_metrics.benchmarks.precisewikiqa import BENCHMARK as PRECISEWIKIQA
from hallu_metrics.judges import JudgeSet, llm
from hallu_metrics.judges.base import Check
from hallu_metrics.judges.fingerprint import check_fingerprint, judge_prompts_hash
from hallu_metrics.longform import claims, verification
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import BENCHMARKS
from hallubench_generators.cli import GENERATORS, generator, reproducibility
from hallubench_generators.common.protocol import generator_prompts_hash
from hallubench_generators.nonexistent_refusal import generatedentities, mixedentities
from hallubench_generators.nonexistent_refusal import prompts as nonexistent_prompts

LONGWIKI = longwiki_benchmark.BENCHMARK
JUDGED = sorted(name for name, b in BENCHMARKS.items() if b.judge_roles)
# Runs beyond each case's own that reach the other checks of a chain: WildHallucinations' optional refusal check,
# and the LLM branch of HHEM summarisation (the rubric instead of the classifier pair).
MORE_RUNS: dict[str, list[dict[str, Any]]] = {
    "wildhallucinations": [{"settings": {"refusal_check": "true"}}],
    "hhem_summarization": [{"spec": "openai:model=scripted", "answers": {"faithfulness": lambda item: 4}}],
}


class Recorder:
    """A test judge that records every check it is asked."""

    def __init__(self, inner: ScriptedJudge, spec: str):
        self.inner, self.spec, self.asked = inner, spec, []

    async def ask(self, check: Check, item: dict):
        self.asked.append(check)
        return await self.inner.ask(check, item)

    def __getattr__(self, name: str) -> Any:  # report, close, a classifier's scorer
        return getattr(self.inner, name)


def asked_checks(name: str, tmp_path, spec: str | None = None, settings: dict | None = None,
                 answers: dict | None = None) -> list[Check]:
    """The checks the benchmark's own chain asks over its metric-paths case (scripted judge in every role)."""
    case = CASES[name](tmp_path)
    spec = spec or case.judge_spec
    recorder = Recorder(ScriptedJudge(case.faults, {**case.answers, **(answers or {})}, cut_when=case.cut_when), spec)
    judges = JudgeSet({"judge": spec}, settings={**case.settings, **(settings or {})})
    judges.use(spec, recorder)
    judges.use(BASELINE_KEY, recorder)
    judge_responses(BENCHMARKS[name], case.responses, case.docs, judges)
    return recorder.asked


@pytest.mark.parametrize("name", JUDGED)
def test_a_chain_asks_exactly_the_checks_its_benchmark_declares(name, tmp_path):
    benchmark = BENCHMARKS[name]
    asked = [check for run in [{}, *MORE_RUNS.get(name, [])] for check in asked_checks(name, tmp_path, **run)]
    undeclared = sorted({c.name for c in asked if c not in benchmark.checks})
    assert not undeclared, f"{name} asks checks it does not declare: {undeclared}"
    never = sorted({c.name for c in benchmark.checks if c not in asked})
    assert not never, f"{name} declares checks its chain never asked here: {never}"


def test_benchmarks_without_judges_declare_no_checks():
    assert all(not b.checks for b in BENCHMARKS.values() if not b.judge_roles)


def test_a_check_the_template_helper_cannot_render_is_covered_with_its_worked_examples():
    """Verification formats each evidence passage: it is rendered on placeholder records, few-shot block included."""
    [system, user] = check_fingerprint(verification.VERIFICATION)["messages"]
    assert "You check one claim" in system["content"]
    assert "Grace Hopper was born in New York City." in user["content"]  # a worked example
    assert "Title: {passages.title}\n{passages.text}" in user["content"] and "{claim}" in user["content"]


def test_prompts_defined_outside_the_judge_item_module_change_the_hash(monkeypatch):
    before = judge_prompts_hash(LONGWIKI)
    monkeypatch.setattr(claims, "_SYSTEM", claims._SYSTEM.replace("claims", "statements"))
    edited_prompt = judge_prompts_hash(LONGWIKI)
    monkeypatch.setattr(verification, "_SHOTS", verification._SHOTS.replace("Grace Hopper", "Ada Lovelace"))
    edited_examples = judge_prompts_hash(LONGWIKI)
    assert len({before, edited_prompt, edited_examples}) == 3


@pytest.mark.parametrize("change", [
    {"max_tokens": 33}, {"reminder": "Answer in JSON."}, {"parse": claims.parse_claims},
    {"rule": claims.sentence_claim},
])
def test_decoding_reminder_and_reader_change_the_hash(change, monkeypatch):
    knowledgeable = longwiki_benchmark.KNOWLEDGEABLE
    edited = replace(LONGWIKI, checks=(replace(knowledgeable, **change), *LONGWIKI.checks[1:]))
    assert judge_prompts_hash(edited) != judge_prompts_hash(LONGWIKI)


def test_judge_temperature_changes_the_hash(monkeypatch):
    before = judge_prompts_hash(LONGWIKI)
    monkeypatch.setattr(llm, "TEMPERATURE", 0.5)
    assert judge_prompts_hash(LONGWIKI) != before


def test_hashes_are_stable_and_read_no_source(monkeypatch):
    """Two computations agree; neither reads source text (so comments cannot count) nor depends on docstrings."""
    first = {name: judge_prompts_hash(b) for name, b in BENCHMARKS.items()}
    cards = {name: generator_prompts_hash(generator(name)) for name in GENERATORS}

    def refuse(*args, **kwargs):
        raise AssertionError("prompt hashes must not read source files")

    monkeypatch.setattr(inspect, "getsource", refuse)
    monkeypatch.setattr(claims, "__doc__", "edited")
    monkeypatch.setattr(claims.parse_claims, "__doc__", "edited")
    assert {name: judge_prompts_hash(b) for name, b in BENCHMARKS.items()} == first
    assert {name: generator_prompts_hash(generator(name)) for name in GENERATORS} == cards
    assert all(h.startswith("sha256:") and len(h) == 23 for h in (*first.values(), *cards.values()))


def test_lm_eval_results_record_the_judge_prompts_hash(tiny_set):
    manager = task_manager({"dataset": str(tiny_set("precisewikiqa")), "judge": "rule"})
    task = manager.load(["precisewikiqa"])["tasks"]["precisewikiqa"]
    assert task.config.metadata["hallubench_judge_prompts_hash"] == judge_prompts_hash(PRECISEWIKIQA)


# ---------------------------------------------------------------- generators

def test_generator_prompts_are_data():
    for module in map(generator, GENERATORS):
        json.dumps(module.sent_prompts(), sort_keys=True, ensure_ascii=True)


def test_prompt_templates_change_the_card_hash_of_both_entity_generators(monkeypatch):
    before = [generator_prompts_hash(m) for m in (mixedentities, generatedentities)]
    monkeypatch.setattr(nonexistent_prompts, "TEMPLATES", (*nonexistent_prompts.TEMPLATES[:-1], "Describe {entity}."))
    after = [generator_prompts_hash(m) for m in (mixedentities, generatedentities)]
    assert before[0] != after[0] and before[1] != after[1]


# Generator packages by name (imported by the test: the faithfulness generator loads spaCy) and their prompts
# modules by full name (a package's own ``prompts`` attribute is its provenance hook).
@pytest.mark.parametrize("package, name, change", [
    ("faithfulness", "_INSTRUCTIONS", lambda old: {**old, "intrinsic": "Contradict the SENTENCE."}),
    ("nonexistent_refusal.generatedentities", "MAX_TOKENS", lambda old: 65),
    ("longwiki", "NO_QUESTION", lambda old: "[NONE]"),
])
def test_a_generator_prompt_or_decoding_change_changes_the_card_hash(package, name, change, monkeypatch):
    module = importlib.import_module(f"hallubench_generators.{package}")
    prompts_module = importlib.import_module(f"hallubench_generators.{package.split('.')[0]}.prompts")
    before = generator_prompts_hash(module)
    monkeypatch.setattr(prompts_module, name, change(getattr(prompts_module, name)))
    assert generator_prompts_hash(module) != before


def test_the_card_records_the_generator_prompts_hash():
    section = reproducibility(mixedentities, argparse.Namespace(seed=0))
    assert f"- generator prompts: {generator_prompts_hash(mixedentities)} " in section
