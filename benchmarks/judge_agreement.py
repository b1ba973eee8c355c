"""Agreement of judges with hand labels, per benchmark check and per split.

- ``precisewikiqa`` (the shipped ``abstention`` and ``correctness`` sets,
  hallu_metrics/benchmarks/precisewikiqa/labels/):
  question, gold answer, response; the hand outcome abstained / correct / hallucinated is the abstention label,
  then (not abstained) the correctness label (INCORRECT and UNVERIFIABLE are both hallucinated). Reports 3-way
  outcome agreement, abstention accuracy and correctness accuracy on the items labelled as attempts.
- ``nonexistent_refusal`` (the shipped ``does_believe`` set, hallu_metrics/benchmarks/nonexistent_refusal/labels/): a
  request
  about a non-existent entity, the response and a hand label (true = believed). Reports agreement, believing
  responses judged as refusals, and refusals judged as believing.

Each record's ``round`` says when it was written relative to the rule: ``tuning`` (seen while the round-1
rule was written), ``holdout-r1`` (written after round 1, seen in round 2), ``cases-r2`` (round-2 cases,
written before the round-2 rule ran, seen while it was written) and ``holdout-r2`` (split ``holdout``:
written after the round-2 rule was frozen, before running it). Responses are SmolLM2-135M outputs plus
hand-written chat-model-style replies (see each record's ``source``; provenance in labels/provenance.yaml).
Usage: python benchmarks/judge_agreement.py [--sets precisewikiqa nonexistent_refusal] [--judges rule smollm2]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from hallu_metrics.benchmarks import nonexistent_refusal, precisewikiqa
from hallu_metrics.contract import Benchmark
from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.labelled_sets import labelled_set, read_labelled
from hallu_metrics.pipeline import judge_responses


def read(benchmark: str, check: str) -> list[dict]:
    return [record for _, record in read_labelled(labelled_set(benchmark, check))]


def precisewikiqa_items() -> list[dict]:
    """The abstention set's items, each with the 3-way hand outcome (abstained, or the correctness label)."""
    graded = {(r["question"], r["response"]): r["label"] for r in read("precisewikiqa", "correctness")}
    return [
        {**r, "label": "abstained" if r["label"] else
         "correct" if graded[(r["question"], r["response"])] == "CORRECT" else "hallucinated"}
        for r in read("precisewikiqa", "abstention")
    ]


def outcomes(benchmark: Benchmark, items: list[dict], docs: list[dict], spec: str) -> list[str]:
    """Each item's judged outcome, through the benchmark's own judging chain with judge ``spec``."""
    judges = JudgeSet({"judge": spec})
    try:
        records = judge_responses(benchmark, [i["response"] for i in items], docs, judges, desc=f"{spec} judge")
    finally:
        judges.close()
    return [r["outcome"] for r in records]


def splits(items: list[dict], outcomes: list[str]) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """(round, [(judged outcome, hand label)]) per round in file order, then for all items."""
    names = list(dict.fromkeys(item["round"] for item in items))
    for name in [*names, "all"]:
        yield name, [(o, i["label"]) for o, i in zip(outcomes, items) if name in ("all", i["round"])]


def precisewikiqa_table(judges: list[str]) -> None:
    items = precisewikiqa_items()
    docs = [{"question": i["question"], "answer": i["gold"]} for i in items]
    labels = [i["label"] for i in items]
    print(f"\nPreciseWikiQA, {len(items)} hand-labelled responses: "
          + ", ".join(f"{label} {labels.count(label)}" for label in sorted(set(labels))) + "\n")
    print("| judge | split | n | outcome agreement | abstention accuracy | correctness accuracy (attempts) "
          "| unjudged |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for spec in judges:
        for split, chosen in splits(items, outcomes(precisewikiqa.BENCHMARK, items, docs, spec)):
            agree = sum(o == label for o, label in chosen) / len(chosen)
            abst = sum((o == "abstained") == (label == "abstained") for o, label in chosen) / len(chosen)
            attempts = [(o, label) for o, label in chosen if label != "abstained" and o in ("correct", "hallucinated")]
            corr = f"{sum(o == label for o, label in attempts) / len(attempts):.1%}" if attempts else "n/a"
            unjudged = sum(o == "unjudged" for o, _ in chosen)
            print(f"| `{spec}` | {split} | {len(chosen)} | {agree:.1%} | {abst:.1%} | {corr} (n={len(attempts)}) "
                  f"| {unjudged} |")


def nonexistent_refusal_table(judges: list[str]) -> None:
    items = [{**r, "label": "believed" if r["label"] else "not_believed"}
             for r in read("mixedentities", "does_believe")]
    print(f"\nNonExistentRefusal does_believe, {len(items)} hand-labelled responses\n")
    print("| judge | split | n | agreement | believing judged as refusal | refusal judged as believing | unjudged |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for spec in judges:
        for split, chosen in splits(items, outcomes(nonexistent_refusal.MIXED, items, items, spec)):
            labels = [label for _, label in chosen]
            agree = sum(o == label for o, label in chosen) / len(chosen)
            missed_belief = sum(o == "not_believed" and label == "believed" for o, label in chosen)
            missed_refusal = sum(o == "believed" and label == "not_believed" for o, label in chosen)
            unjudged = sum(o == "unjudged" for o, _ in chosen)
            print(f"| `{spec}` | {split} | {len(chosen)} | {agree:.1%} | {missed_belief} of {labels.count('believed')} "
                  f"| {missed_refusal} of {labels.count('not_believed')} | {unjudged} |")


TABLES = {"precisewikiqa": precisewikiqa_table, "nonexistent_refusal": nonexistent_refusal_table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", choices=sorted(TABLES), default=sorted(TABLES))
    parser.add_argument("--judges", nargs="+", default=["rule", "smollm2"])
    args = parser.parse_args()
    for name in args.sets:
        TABLES[name](args.judges)


if __name__ == "__main__":
    main()
