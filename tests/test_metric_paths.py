"""One number on every path, and unreadable verdicts never counted as good scores.

For every benchmark of the registry, the same judged records (made by the benchmark's own judging chain, with a
scripted judge that answers some checks with an unreadable reply or a failed call) give the same value of every
metric through lm-eval's aggregation (the task's metric_list applied to the per-sample values), through
``Benchmark.summarize`` (what ``hallubench score`` reports), through the benchmark's ``evaluate`` module and through
its Inspect task's scorer, epoch reducer and metric (tests/test_inspect_tasks.py runs Inspect itself). An item
without a readable verdict counts toward no metric but the unreadable share; a judge that never answers in the
expected format leaves the headline undefined (n/a), announces it in a banner and makes ``hallubench score`` exit 2.

The cases come from the registry: ``CASE_BUILDERS`` holds one builder per judging chain (a benchmark's
``judge_item``), which builds the case of every benchmark that chain serves from the ``Benchmark`` itself (its doc
columns, judge roles, default judge). A benchmark whose judging chain has no builder fails
``test_every_benchmark_has_a_case``; a case must give docs with every column the benchmark declares.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from support import evaluate_module

from hallu_metrics.benchmarks import longwiki
from hallu_metrics.benchmarks.faithfulness import BASELINE_KEY
from hallu_metrics.contract import Benchmark
from hallu_metrics.judges import JudgeSet, Verdict
from hallu_metrics.longform.knowledge import write_store
from hallu_metrics.pipeline import judge_responses
from hallu_metrics.registry import BENCHMARKS, TASKS
from hallu_metrics.scorers.windows import Coverage
from hallubench_tasks import TASKS_DIR
from hallubench_tasks.judged_task import JudgeFilter, RecordMetrics

UNREADABLE_REPLY = "hmm, hard to say"

# Metrics that, by definition, do not depend on the judge's verdicts (read from the model's reply itself) or that
# replicate a reference implementation's arithmetic, which counts unreadable verdicts its own way.
NOT_FROM_VERDICTS = {
    "hhem_summarization": {"answer_rate", "average_summary_length"},  # validity is read from the summary
    "anah_v2_ref": {"empty_response_rate", "response_hallucination_rate_official"},  # no sentence; eval.py replay
    "simpleqa_hallu": {"not_attempted_rate_reference"},  # simple-evals reads an unreadable grade as not attempted
    "popqa_hallu": {"not_attempted_rate_reference"},
}


class ScriptedJudge:
    """The embedded rule judge (or a fixed answer per check), except where ``faults`` picks a (check, item text):
    an unreadable reply, read by the check's own reader as an LLM judge's reply is, or a failed call. With
    ``all_bad`` every check gets an unreadable reply (a judge that answers in the wrong format)."""

    spec = "rule"

    def __init__(self, faults: dict[tuple[str, str], str], answers: dict[str, Callable[[dict], Any]],
                 all_bad: bool = False, cut_when: str | None = None):
        self.faults, self.answers, self.all_bad = faults, answers, all_bad
        if cut_when is not None:  # a classifier-like judge that tells how much of each pair it saw
            self.scorer = type("Scorer", (), {"coverage": staticmethod(lambda pairs: [
                Coverage(1, 10, 5 if cut_when in premise else 10, 3, 3) for premise, _ in pairs])})()

    async def ask(self, check, item):
        texts = [v for v in item.values() if isinstance(v, str)]
        fault = "unreadable" if self.all_bad else next(
            (self.faults[(check.name, v)] for v in texts if (check.name, v) in self.faults), None)
        if fault == "failed":
            return Verdict(None, "failed", "connection refused")
        if fault == "unreadable":
            label = check.parse(UNREADABLE_REPLY) if check.parse else None
            return Verdict(label, "ok" if label is not None else "unparseable", UNREADABLE_REPLY)
        return Verdict(self.answers.get(check.name, check.rule)(item), "ok", "scripted")

    def report(self):
        return {"calls": 0, "cached": 0, "failed": 0}

    def close(self):
        pass


@dataclass
class Case:
    """Responses and docs of one benchmark, the faults its judge makes, and the evaluate module's inputs."""

    responses: list[str]
    docs: list[dict]
    evaluate_inputs: Callable[[list[dict], list[dict], list[str]], dict[str, Any]]
    faults: dict[tuple[str, str], str] = field(default_factory=dict)
    answers: dict[str, Callable[[dict], Any]] = field(default_factory=dict)
    judge_spec: str = "rule"
    settings: dict[str, Any] = field(default_factory=dict)
    cut_when: str | None = None


def _outcomes(records, docs, responses):
    return [r["outcome"] for r in records]


def precisewikiqa_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    responses = ["It is Paris.", "It is Lyon.", "I'm sorry, I don't know.", "It is Paris, surely.", "Maybe Rome.",
                 "Paris it is."]
    docs = [{"id": str(i), "question": f"Capital number {i}?", "answer": "Paris", "title": "T", "reference": "r",
             "difficulty": i % 3} for i in range(len(responses))]
    return Case(responses, docs,
                lambda records, docs, _: {"outcomes": _outcomes(records, docs, _),
                                          "difficulties": [d["difficulty"] for d in docs]},
                faults={("abstention", "It is Paris, surely."): "unreadable",
                        ("correctness", "Maybe Rome."): "unreadable", ("correctness", "Paris it is."): "failed"})


def nonexistent_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    """MixedEntities, or GeneratedEntities when the benchmark's docs carry a place (and its tier)."""
    generated = "place_tier" in benchmark.required_doc_columns
    responses = ["Aus bus is a small beetle of Peru.", "I'm not aware of any animal by that name.",
                 "It is a shrub with red leaves.", "It grows in wet forests.", "It is a fine thing."]
    domains = ["animal", "animal", "plant", "plant", "animal"]
    docs = [{"id": str(i), "name": "Aus bus", "domain": d, "type": d, "prompt": f"Tell me about the {d} Aus bus.",
             **({"place": "Oslo", "place_tier": "high" if i % 2 else "low"} if generated else {})}
            for i, d in enumerate(domains)]
    return Case(responses, docs,
                lambda records, docs, _: {"outcomes": _outcomes(records, docs, _),
                                          "domains": [d["domain"] for d in docs],
                                          "place_tiers": [d.get("place_tier") or "" for d in docs]},
                faults={("does_believe", "It grows in wet forests."): "unreadable",
                        ("does_believe", "It is a fine thing."): "failed"})


LONGWIKI_PAGES = [
    ("Sirius", "Sirius is the brightest star in the night sky. It is a binary star in the constellation Canis Major. "
               "Its companion Sirius B is a white dwarf. Sirius lies 8.6 light-years from the Sun."),
    ("Canis Major", "Canis Major is a constellation in the southern celestial hemisphere. Its brightest star is "
                    "Sirius."),
]


def longwiki_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    store = str(write_store(tmp_path / "kb", LONGWIKI_PAGES, progress=False).path)
    responses = [
        "Sirius is the brightest star in the night sky. Its companion Sirius B is a white dwarf.",
        "Sirius lies 50 light-years from the Sun. Sirius is a binary star in the constellation Canis Major.",
        "I'm sorry, but I don't have information about that star, so I can't describe it.",
        "Yes. No.",
        "Sirius is a red giant. Sirius is the brightest star in the night sky.",
        "Sirius is famous among sailors.",
        "Sirius is in Canis Major.",
    ]
    docs = [{"id": str(i), "prompt": "Tell me about Sirius and the constellation Canis Major.", "title": "Sirius",
             "reference": LONGWIKI_PAGES[0][1], "level": 5 + i % 2, "k": 32} for i in range(len(responses))]
    return Case(responses, docs,
                lambda records, docs, _: {"outcomes": _outcomes(records, docs, _),
                                          "claims": [r["n_claims"] for r in records],
                                          "supported": [r["supported"] for r in records],
                                          "ks": [r["k"] for r in records], "levels": [d["level"] for d in docs]},
                faults={("claim_extraction", "Sirius is a red giant."): "unreadable",
                        ("knowledgeable", "Sirius is famous among sailors."): "unreadable",
                        ("verification", "Sirius is in Canis Major."): "failed"},
                settings={"knowledge": store, "retrieval": "bm25"})


WILD_PAGES = [("https://en.wikipedia.org/wiki/Lake_Baikal", "Lake Baikal is a rift lake in Siberia. It is the deepest "
               "lake in the world, with a maximum depth of 1,642 metres."),
              ("https://baikal.example/facts", "The lake holds about 23 percent of the fresh surface water.")]


def wildhallucinations_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    responses = [
        "Lake Baikal is a rift lake in Siberia. Lake Baikal is the deepest lake in the world.",
        "Lake Baikal is a salt lake in Peru.",
        "I'm sorry, I could not find any information about Lake Baikal.",
        "Hi.",
        "Lake Baikal is a rift lake in Siberia. Lake Baikal is shaped like a moon.",
        "Lake Baikal holds about 23 percent of the fresh surface water.",
    ]
    docs = [{"entity": "Lake Baikal", "perplexity": [3.0, 40.0, None][i % 3],
             "category": ["geographic", "nature"][i % 2],
             "info": [{"status_code": 200, "text": text, "url": url} for url, text in WILD_PAGES[: 1 + i % 2]]}
            for i in range(len(responses))]
    return Case(responses, docs,
                lambda records, docs, _: {
                    "outcomes": _outcomes(records, docs, _), "supported_facts": [r["n_supported"] for r in records],
                    "total_facts": [r["n_facts"] for r in records], "categories": [d["category"] for d in docs],
                    "knowledge_urls": [[p["url"] for p in d["info"]] for d in docs],
                    "perplexities": [d["perplexity"] for d in docs]},
                faults={("atomic_facts", "Lake Baikal is shaped like a moon."): "unreadable",
                        ("verification", "Lake Baikal holds about 23 percent of the fresh surface water."): "failed"},
                settings={"retrieval": "bm25"})


def hhem_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    responses = ["The council approved a calm new park plan today.",
                 "The council banned all parks in the city forever.", "Too short.",
                 "I'm sorry, I cannot summarise this passage for you.",
                 "The council discussed parks and budgets at length today.",
                 "The council met on Monday to discuss the parks."]
    docs = [{"id": str(i), "source": f"Document {i}: the council approved a new park plan. " + ("long " * i),
             "prompt": "p"} for i in range(len(responses))]
    return Case(responses, docs,
                lambda records, docs, responses: {"predictions": responses, "scores": [r["score"] for r in records],
                                                  "scorer_inputs": [r.get("scorer_input") for r in records]},
                faults={("summary_consistency", responses[4]): "unreadable",
                        ("summary_consistency", responses[5]): "failed"},
                answers={"summary_consistency": lambda item: 0.9 if "calm" in item["hypothesis"] else 0.2},
                cut_when="long")


ANAH_DOCUMENT = "The Amazon is a river in South America. It is about 6,400 km long. It flows into the Atlantic."


def anah_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    responses = [
        "The Amazon is a river in South America. It is about 6,400 km long.",
        "The Amazon is about 9,000 km long. It flows into the Pacific Ocean.",
        "The Amazon flows into the Atlantic. The Amazon is the widest river on Earth.",
        "The Amazon is a river in South America.",
        "",
        "The Amazon is about 6,400 km long.",
    ]
    docs = [{"id": str(i), "question": "Tell me about the Amazon.", "document": ANAH_DOCUMENT, "language": "en",
             "prompt": "p"} for i in range(len(responses))]
    return Case(responses, docs,
                lambda records, docs, _: {
                    "sentence_labels": [[s["label"] for s in r["sentences"]] for r in records],
                    "languages": [d["language"] for d in docs],
                    "official_labels": [[s["official"]["label"] for s in r["sentences"]] for r in records]},
                faults={("anah_facts", "The Amazon is the widest river on Earth."): "unreadable",
                        ("anah_facts", "The Amazon is a river in South America."): "unreadable",
                        ("anah_hallucination", "The Amazon is about 6,400 km long."): "failed"})


def faitheval_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    """A keyword task (the evaluate module names it), or the multiple-choice one when docs carry choices."""
    task = benchmark.name.removeprefix("faitheval_")
    if "choice_labels" in benchmark.required_doc_columns:
        responses = ["B", "A) a cat", "none of these", "The answer is B."]
        docs = [{"id": str(i), "subset": "", "prompt": "p", "choice_labels": ["A", "B", "C"],
                 "choice_texts": ["a cat", "a dog", "a bird"], "answer_key": "B"} for i in range(len(responses))]
        return Case(responses, docs, lambda records, docs, responses: {
            "predictions": responses, "task": task, "answer_keys": [d["answer_key"] for d in docs],
            "choice_labels": [d["choice_labels"] for d in docs], "choice_texts": [d["choice_texts"] for d in docs]})
    responses = ["unknown", "Paris", "There is a conflict here.", "nothing here", ""]
    docs = [{"id": str(i), "subset": ["squad", "nq"][i % 2], "prompt": "p"} for i in range(len(responses))]
    return Case(responses, docs, lambda records, docs, responses: {"predictions": responses, "task": task})


def short_answer_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    """SimpleQA's docs, or PopQA's when the benchmark's docs carry popularity."""
    popqa = "s_pop" in benchmark.required_doc_columns
    responses = ["It is Paris.", "It is Lyon.", "I don't know.", "Perhaps Paris.", "Paris, I think.", "Rome."]
    golds = ["Paris"]
    if popqa:
        docs = [{"id": str(i), "question": f"Q{i}?", "golds": golds, "prop": "capital", "s_pop": 10 ** i,
                 "popularity_bin": i} for i in range(len(responses))]
    else:
        docs = [{"id": str(i), "question": f"Q{i}?", "answer": "Paris", "golds": golds, "topic": "geo",
                 "answer_type": "place"} for i in range(len(responses))]
    return Case(responses, docs, lambda records, docs, _: {"grades": _outcomes(records, docs, _)},
                faults={("short_answer_grade", "Perhaps Paris."): "unreadable",
                        ("short_answer_grade", "Paris, I think."): "unreadable",
                        ("short_answer_grade", "Rome."): "failed"})


def faithfulness_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    """The rubric task when no judge runs (the model's replies are rubric scores), else the pair judged by its
    default judge's kind (a classifier or the rule baseline)."""
    rubric = not benchmark.judge_roles
    types = ["gold_full", "gold_sentence", "intrinsic", "extrinsic", "progression", "progression", "intrinsic"]
    shares = [0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    docs = [{"id": str(i), "reference": f"Reference {i}.", "hypothesis": f"Hypothesis {i}.", "type": t,
             "hallucinated_share": s, "expected_score": 5.0 - 4.0 * s,
             "progression_kind": "intrinsic" if t == "progression" else "", "prompt": "p"}
            for i, (t, s) in enumerate(zip(types, shares))]

    def inputs(records, docs, responses):
        base = {"references": [d["expected_score"] for d in docs], "types": [d["type"] for d in docs],
                "hallucinated_shares": [d["hallucinated_share"] for d in docs],
                "progression_kinds": [d["progression_kind"] or "none" for d in docs]}
        if rubric:
            return {"predictions": responses, **base}
        return {"predictions": [""] * len(docs), **base, "scores": [r["score"] for r in records],
                "outcomes": [r["outcome"] for r in records]}

    if rubric:
        replies = ['{"score": 5}', '{"score": 4}', '{"score": 2}', "no idea", '{"score": 5}', '{"score": 1}',
                   '{"score": 9}']
        return Case(replies, docs, inputs)
    return Case([""] * len(docs), docs, inputs,
                faults={("faithfulness", "Hypothesis 3."): "unreadable", ("faithfulness", "Hypothesis 6."): "failed"},
                answers={"faithfulness": lambda item: 4.6 if item["hypothesis"] in ("Hypothesis 0.", "Hypothesis 4.")
                         else 1.4 + int(item["hypothesis"].split()[1][0]) / 10},
                judge_spec="hhem:model=scripted" if benchmark.default_judge.startswith("hhem:") else "rule")


def halueval_case(tmp_path: Path, benchmark: Benchmark) -> Case:
    responses = ["Yes", "No", "maybe", "#Your Judgement#: No", "Yes and No"]
    labels = ["Yes", "Yes", "No", "No", "Yes"]
    docs = [{"id": str(i), "label": label, "candidate": "c", "pattern": ["p1", ""][i % 2], "prompt": "p"}
            for i, label in enumerate(labels)]
    return Case(responses, docs, lambda records, docs, responses: {
        "predictions": responses, "references": [d["label"] for d in docs]})


def judging_chain(benchmark: Benchmark) -> str:
    """The benchmark's judging chain, ``module:function`` of its ``judge_item``."""
    function = benchmark.judge_item
    return f"{function.__module__}:{function.__qualname__}"


# One case builder per judging chain; it builds the case of each benchmark the chain serves.
CASE_BUILDERS: dict[str, Callable[[Path, Benchmark], Case]] = {
    "hallu_metrics.benchmarks.precisewikiqa.chain:judge_item": precisewikiqa_case,
    "hallu_metrics.benchmarks.longwiki.chain:judge_item": longwiki_case,
    "hallu_metrics.benchmarks.nonexistent_refusal.chain:judge_item": nonexistent_case,
    "hallu_metrics.benchmarks.wildhallucinations.chain:judge_item": wildhallucinations_case,
    "hallu_metrics.benchmarks.hhem_summarization.chain:judge_item": hhem_case,
    "hallu_metrics.benchmarks.anah.chain:judge_item": anah_case,
    "hallu_metrics.benchmarks.faitheval.chain:keyword_judge.<locals>.judge_item": faitheval_case,
    "hallu_metrics.benchmarks.faitheval.chain:judge_choice": faitheval_case,
    "hallu_metrics.short_answer_qa.chain:judge_item": short_answer_case,
    "hallu_metrics.benchmarks.faithfulness.chain:judge_reply": faithfulness_case,
    "hallu_metrics.benchmarks.faithfulness.chain:judge_hhem": faithfulness_case,
    "hallu_metrics.benchmarks.faithfulness.chain:judge_baseline": faithfulness_case,
    "hallu_metrics.benchmarks.halueval.chain:judge_item": halueval_case,
}
# Every registered benchmark whose judging chain has a builder: CASES[name](tmp_path) -> its Case.
CASES: dict[str, Callable[[Path], Case]] = {
    name: functools.partial(CASE_BUILDERS[judging_chain(b)], benchmark=b)
    for name, b in BENCHMARKS.items() if judging_chain(b) in CASE_BUILDERS
}
JUDGED = sorted(name for name, b in BENCHMARKS.items() if b.unreadable_metric)


def judged_records(name: str, case: Case, all_bad: bool = False) -> list[dict]:
    """The benchmark's own judging chain over the case, with the scripted judge in every role."""
    judge = ScriptedJudge(case.faults, case.answers, all_bad=all_bad, cut_when=case.cut_when)
    judges = JudgeSet({"judge": case.judge_spec}, settings=case.settings)
    judges.use(case.judge_spec, judge)
    judges.use(BASELINE_KEY, judge)
    return judge_responses(BENCHMARKS[name], case.responses, case.docs, judges)


def lm_eval_values(name: str, records: list[dict], docs: list[dict]) -> dict[str, float]:
    """What lm-eval reports per metric: the task's process_results, then each metric_list aggregation."""
    from lm_eval.api.registry import get_aggregation

    benchmark = BENCHMARKS[name]
    hook = RecordMetrics(benchmark)
    per_sample = [hook(doc, [json.dumps(record)]) for record, doc in zip(records, docs)]
    values = {}
    for entry in benchmark.lm_eval_metric_list():
        aggregate = entry["aggregation"]
        aggregate = get_aggregation(aggregate) if isinstance(aggregate, str) else aggregate
        values[entry["metric"]] = aggregate([sample[entry["metric"]] for sample in per_sample])
    return values


def inspect_values(name: str, records: list[dict], docs: list[dict]) -> dict[str, float]:
    """What an Inspect run of the task reports: each sample's score as its scorer makes it from the judged record,
    reduced over its one epoch by the task's reducer, then the task's metric (values and ``<metric>_stderr``)."""
    from inspect_ai.scorer import SampleScore

    from hallubench.inspect_tasks.judging import epoch_mean, hallubench_metrics, record_score

    benchmark, reduce = BENCHMARKS[name], epoch_mean()
    scores = [SampleScore(score=reduce([record_score(benchmark, doc, "", record, {})]), sample_id=i)
              for i, (record, doc) in enumerate(zip(records, docs))]
    return hallubench_metrics(benchmark)(scores)


def same(a: Any, b: Any) -> bool:
    """Equal numbers, or both undefined (None / NaN)."""
    undefined = [v is None or (isinstance(v, float) and math.isnan(v)) for v in (a, b)]
    return all(undefined) or (not any(undefined) and a == pytest.approx(b))


def test_every_benchmark_has_a_case():
    """Every registered benchmark's judging chain has a case builder, and every builder serves a benchmark."""
    missing = sorted(f"{name} ({judging_chain(b)})" for name, b in BENCHMARKS.items() if name not in CASES)
    assert not missing, f"benchmarks whose judging chain has no CASE_BUILDERS entry: {missing}"
    assert set(CASE_BUILDERS) <= {judging_chain(b) for b in BENCHMARKS.values()}, "a builder serves no benchmark"


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_lm_eval_score_and_evaluate_give_the_same_numbers(name, tmp_path):
    """The same judged records, unreadable and failed verdicts included: every metric agrees on the four paths
    (lm-eval, hallubench score, the evaluate module, Inspect), and Inspect's stderr is score's."""
    case = CASES[name](tmp_path)
    benchmark = BENCHMARKS[name]
    for doc in case.docs:  # the case's docs are the benchmark's
        assert set(benchmark.required_doc_columns) <= set(doc), set(benchmark.required_doc_columns) - set(doc)
    records = judged_records(name, case)
    summary = benchmark.summarize(records, case.docs)
    unreadable = benchmark.unreadable_metric
    if unreadable:  # the case exercises unreadable verdicts, and readable ones
        assert 0 < summary[unreadable] < 1, (unreadable, summary[unreadable])
    else:  # no judge: the model's replies are read; some are unreadable (a model failure)
        assert any(r["outcome"] in ("invalid", "unparseable", "wrong") for r in records)
    for record, doc in zip(records, case.docs):  # the chain's keys are declared (contract)
        assert set(benchmark.sample_metrics(record, doc)) <= set(benchmark.metric_names)
        assert "outcome" not in record or record["outcome"] in benchmark.outcomes, f"undeclared {record['outcome']}"
        for metric, value in benchmark.sample_metrics(record, doc).items():  # proportions: 0/1 per item (Wilson)
            if benchmark.metric(metric).kind == "rate" and benchmark.metric(metric).proportion and value is not None:
                assert value in (0.0, 1.0), (metric, value)
    lm_eval = lm_eval_values(name, records, case.docs)
    module = evaluate_module(benchmark.evaluate_module)
    result = module.compute(**case.evaluate_inputs(records, case.docs, case.responses))
    inspect = inspect_values(name, records, case.docs)
    for metric in benchmark.metric_names:
        assert same(lm_eval[metric], summary[metric]), (metric, lm_eval[metric], summary[metric])
        assert same(result[metric], summary[metric]), (metric, result[metric], summary[metric])
        assert same(inspect.get(metric), summary[metric]), (metric, inspect.get(metric), summary[metric])
        assert same(inspect.get(f"{metric}_stderr"), summary["stderr"][metric]), metric
    assert result["counts"] == summary.get("counts", result["counts"])


@pytest.mark.parametrize("name", JUDGED)
def test_an_item_without_a_readable_verdict_counts_toward_no_other_metric(name, tmp_path):
    """Per item: when every verdict it needed is unreadable or failed, its value of every metric that depends on
    verdicts is None (it is left out, never scored as a refusal, a correct answer or a consistent summary)."""
    case = CASES[name](tmp_path)
    benchmark = BENCHMARKS[name]
    unreadable = benchmark.unreadable_metric
    exempt = NOT_FROM_VERDICTS.get(name, set()) | {unreadable}
    seen = 0
    for all_bad in (False, True):
        for record, doc in zip(judged_records(name, case, all_bad), case.docs):
            values = benchmark.sample_metrics(record, doc)
            if values[unreadable] == 1.0:
                seen += 1
                counted = {m: v for m, v in values.items() if m not in exempt and v is not None}
                assert not counted, f"an item without a readable verdict counts toward {counted}"
    assert seen


@pytest.mark.parametrize("name", JUDGED)
def test_a_judge_in_the_wrong_format_leaves_the_numbers_to_readable_items(name, tmp_path):
    """Every verdict unreadable (a judge answering in the wrong format): each metric equals its value over the items
    that needed no verdict (phrase-list abstentions, invalid summaries), undefined when there are none; never the
    best score. lm-eval's aggregation agrees (NaN where undefined)."""
    case = CASES[name](tmp_path)
    benchmark = BENCHMARKS[name]
    records = judged_records(name, case, all_bad=True)
    unreadable = benchmark.unreadable_metric
    per_item = [benchmark.sample_metrics(r, d)[unreadable] for r, d in zip(records, case.docs)]
    keep = [i for i, value in enumerate(per_item) if not value]
    everything = benchmark.summarize(records, case.docs)
    readable = benchmark.summarize([records[i] for i in keep], [case.docs[i] for i in keep])
    lm_eval = lm_eval_values(name, records, case.docs)
    assert everything[unreadable] > 0
    for metric in set(benchmark.metric_names) - NOT_FROM_VERDICTS.get(name, set()) - {unreadable}:
        assert same(everything[metric], readable[metric] if keep else None), metric
        assert same(lm_eval[metric], everything[metric]), metric


def test_mixedentities_with_a_wrong_format_judge_has_no_false_acceptance_rate(tmp_path):
    """The reported bug: every does_believe verdict unreadable printed a false acceptance rate of 0 (the best
    score). Now it is undefined, and the unreadable share is 1."""
    case = CASES["mixedentities"](tmp_path)
    result = BENCHMARKS["mixedentities"].summarize(judged_records("mixedentities", case, all_bad=True), case.docs)
    assert result["false_acceptance_rate"] is None and result["judge_unparseable_rate"] == 1.0
    assert all(row["false_acceptance_rate"] is None for row in result["breakdowns"]["domain"])


def test_the_unreadable_share_has_one_name_and_one_wording():
    """Every benchmark names its unreadable share `judge_unparseable_rate` (no `unscored_rate`, no
    `unparseable_rate`) and words it with `contract.unreadable_share`: only the unit, the denominator and a note
    differ."""
    wording = re.compile(r".+ without a readable judge verdict \(unreadable reply or failed call(; [^)]+)?\) / .+")
    declared = {name: b for name, b in BENCHMARKS.items() if "judge_unparseable_rate" in b.metric_names}
    for name, benchmark in BENCHMARKS.items():
        assert not {"unscored_rate", "unparseable_rate"} & set(benchmark.metric_names), name
    for name, benchmark in declared.items():
        assert wording.fullmatch(benchmark.metric("judge_unparseable_rate").description), name
    assert {BENCHMARKS[name].unreadable_metric for name in JUDGED} == {"judge_unparseable_rate"}
    assert {"hhem_summarization", "faithfulness_rubric", "faithfulness_hhem", "faithfulness_baseline"} <= set(declared)


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_the_unreadable_share_is_printed_beside_every_headline(name):
    """Per-task tables and `hallubench report` print the headline metrics: the unreadable share is among them
    whenever a judge runs."""
    benchmark = BENCHMARKS[name]
    if benchmark.judge_roles:
        assert benchmark.unreadable_metric in benchmark.headline_metrics
    else:
        assert benchmark.unreadable_metric is None


class _Loose(yaml.SafeLoader):
    """Reads lm-eval YAML without resolving `!function` tags."""


_Loose.add_multi_constructor("!", lambda loader, suffix, node: None)


def _yaml(path) -> dict:
    return yaml.load(path.read_text(), Loader=_Loose) or {}


GROUPS = sorted(p for p in TASKS_DIR.rglob("_*.yaml") if "group" in _yaml(p))


@pytest.mark.parametrize("path", GROUPS, ids=lambda p: p.stem)
def test_group_rows_carry_the_unreadable_share(path):
    """A group row that aggregates metrics also aggregates the unreadable share of its judged tasks."""
    data = _yaml(path)
    aggregated = {entry["metric"] for entry in data.get("aggregate_metric_list") or []}
    if not aggregated:
        return  # the group prints no row of its own
    needed = {TASKS[task].unreadable_metric for task in data["task"] if task in TASKS} - {None}
    assert needed <= aggregated


def test_some_group_aggregates_an_unreadable_share():
    rows = [_yaml(p).get("aggregate_metric_list") or [] for p in GROUPS]
    assert any(entry["metric"] == "judge_unparseable_rate" for row in rows for entry in row)


# ---------------------------------------------------------------- banner and exit status

def wrong_format_reply(messages):
    return "Sure! I believe it might exist, hard to say."


def unreadable_for_xyzzy(messages):
    return "no clue" if "XYZZY" in json.dumps(messages) else '{"does_believe": true}'


def _mixed_samples(tmp_path, n=4):
    case = CASES["mixedentities"](tmp_path)
    path = tmp_path / "samples_mixedentities_x.jsonl"
    path.write_text("\n".join(json.dumps({"doc": d, "resps": [[r]]}) for d, r in zip(case.docs[:n], case.responses)))
    return path


def test_score_exits_2_when_the_unreadable_share_exceeds_the_threshold(tmp_path, capsys, monkeypatch, loopback_servers):
    """A judge in the wrong format: `score` writes the result (rates n/a), prints a banner, and exits 2 with one
    line naming the share and the option; with --max-unreadable 1 the same run exits 0."""
    from hallubench.cli import main

    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "c.sqlite"))
    samples = _mixed_samples(tmp_path)
    server = loopback_servers.chat(wrong_format_reply)
    judge = f"openai:base_url={server.base_url},model=j,max_retries=0"
    argv = ["score", "--task", "mixedentities", "--samples", str(samples), "--judge", judge,
            "--out", str(tmp_path / "r.json")]
    assert main(argv) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith("hallubench: error:")]
    assert len(errors) == 1 and "100.0% of the judge verdicts are unreadable" in errors[0]
    assert "--max-unreadable 0.05" in errors[0]
    assert "4 of 4 items have UNREADABLE or failed judge verdicts" in captured.err
    assert "| **all** | 4 | n/a | 100.0" in captured.out
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["false_acceptance_rate"] is None and result["judge_unparseable_rate"] == 1.0
    assert result["unreadable"] == {"metric": "judge_unparseable_rate", "share": 1.0, "items": 4, "max": 0.05}
    assert main([*argv, "--max-unreadable", "1"]) == 0


def test_score_under_the_threshold_exits_0_but_still_announces_unreadable_verdicts(tmp_path, capsys, monkeypatch,
                                                                                  loopback_servers):
    """One unreadable verdict in 25 (4%) is under the default 5%: exit 0, banner on stderr; 0.03 makes it exit 2."""
    from hallubench.cli import main

    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "c.sqlite"))
    doc = CASES["mixedentities"](tmp_path).docs[0]
    samples = tmp_path / "samples_mixedentities_x.jsonl"
    lines = [{"doc": {**doc, "id": str(i)}, "resps": [["XYZZY" if i == 0 else f"It is a beetle, number {i}."]]}
             for i in range(25)]
    samples.write_text("\n".join(json.dumps(line) for line in lines))
    server = loopback_servers.chat(unreadable_for_xyzzy)
    judge = f"openai:base_url={server.base_url},model=j,max_retries=0"
    argv = ["score", "--task", "mixedentities", "--samples", str(samples), "--judge", judge,
            "--out", str(tmp_path / "r.json")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "1 of 25 items have UNREADABLE or failed judge verdicts (judge_unparseable_rate 4.0%)" in err
    assert json.loads((tmp_path / "r.json").read_text())["false_acceptance_rate"] == 1.0  # over 24 readable
    assert main([*argv, "--max-unreadable", "0.03"]) == 2


@pytest.mark.parametrize("value", ["1.5", "-0.1", "lots"])
def test_max_unreadable_must_be_a_share(value, tmp_path, capsys):
    from hallubench.cli import main

    argv = ["score", "--task", "mixedentities", "--samples", str(tmp_path / "s.jsonl"), "--out",
            str(tmp_path / "r.json"), "--max-unreadable", value]
    assert main(argv) == 2
    assert "expected a share between 0 and 1" in capsys.readouterr().err


def test_lm_eval_filter_announces_unparseable_replies_not_only_failed_calls(tmp_path, capsys, monkeypatch,
                                                                           loopback_servers):
    """Inside lm-eval nothing fails (the judge answers), but every reply is unreadable: the banner says so."""
    monkeypatch.setenv("HALLUBENCH_CACHE", str(tmp_path / "c.sqlite"))
    case = CASES["mixedentities"](tmp_path)
    server = loopback_servers.chat(wrong_format_reply)
    judge = f"openai:base_url={server.base_url},model=j,max_retries=0"
    records = JudgeFilter(BENCHMARKS["mixedentities"], {"judge": judge}, "mixedentities").apply(
        case.responses[:3], case.docs[:3])
    assert all(json.loads(r)["outcome"] == "unjudged" for r in records)
    err = capsys.readouterr().err
    assert "mixedentities: 3 of 3 items have UNREADABLE or failed judge verdicts (judge_unparseable_rate 100.0%)" in err
    assert "FAILED after retries" not in err


def test_lm_eval_filter_is_quiet_when_every_verdict_is_readable(tmp_path, capsys):
    case = CASES["mixedentities"](tmp_path)
    JudgeFilter(BENCHMARKS["mixedentities"], {"judge": "rule"}, "mixedentities").apply(case.responses, case.docs)
    assert "UNREADABLE" not in capsys.readouterr().err


# ---------------------------------------------------------------- reference-compatible columns

def test_reference_columns_sit_beside_the_projects_own(tmp_path):
    """LongWiki's abstain ratio (refused + claim-less, as the HalluLens reference code), WildHallucinations' facts
    per fact-bearing response (FActScore) and SimpleQA's not attempted with unreadable grades (simple-evals) are
    headline columns next to the project's metrics, with the numbers their references compute."""
    lw = longwiki.BENCHMARK.summarize(
        [{"outcome": o, "n_claims": 2 if o == "judged" else 0, "supported": 1, "k": 32}
         for o in ("refused", "no_claims", "judged", "judged", "unjudged")], [{"level": 5}] * 5)
    assert (lw["false_refusal_rate"], lw["no_claim_rate"], lw["abstain_rate_reference"]) == (0.25, 0.25, 0.5)
    assert "abstain_rate_reference" in longwiki.BENCHMARK.headline_metrics
    wild = BENCHMARKS["wildhallucinations"].summarize(
        [{"outcome": o, "n_facts": n, "n_supported": n} for o, n in
         (("abstained", 0), ("no_facts", 0), ("all_supported", 6), ("all_supported", 2))], [{"info": []}] * 4)
    assert wild["facts_per_response"] == pytest.approx(8 / 3) and wild["facts_per_response_reference"] == 4.0
    qa = BENCHMARKS["simpleqa_hallu"].summarize(
        [{"outcome": o} for o in ("correct", "not_attempted", "unjudged", "incorrect")], [{}] * 4)
    assert qa["false_refusal_rate"] == pytest.approx(1 / 3) and qa["not_attempted_rate_reference"] == 0.5
    for name, column in (("wildhallucinations", "facts_per_response_reference"),
                         ("simpleqa_hallu", "not_attempted_rate_reference"),
                         ("popqa_hallu", "not_attempted_rate_reference")):
        assert column in BENCHMARKS[name].headline_metrics
