"""Agreement of judges with hand labels, per benchmark check.

- ``precisewikiqa`` (benchmarks/data/judge_agreement.jsonl): question, gold answer, response and a hand
  label abstained / correct / hallucinated. Reports 3-way outcome agreement, abstention accuracy and
  correctness accuracy on the items labelled as attempts.
- ``nonexistent_refusal`` (benchmarks/data/does_believe_agreement.jsonl): a request about a non-existent
  entity, the response and a hand label believed / not_believed, per split (``tuning``: items seen
  while the rule's phrases were extended; ``holdout``: written afterwards). Reports agreement, believing
  responses judged as refusals, and refusals judged as believing.

Responses are SmolLM2-135M outputs plus hand-written chat-model-style replies (see each line's `source`).
Usage: python benchmarks/judge_agreement.py [--sets precisewikiqa nonexistent_refusal] [--judges rule smollm2]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hallu_metrics import nonexistent_refusal, precisewikiqa
from hallu_metrics.judges import make_judge

DATA = Path(__file__).resolve().parent / "data"


def read(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


def precisewikiqa_table(judges: list[str]) -> None:
    items = read("judge_agreement.jsonl")
    docs = [{"question": i["question"], "answer": i["gold"]} for i in items]
    labels = [i["label"] for i in items]
    print(f"\nPreciseWikiQA, {len(items)} hand-labelled responses: " + ", ".join(f"{l} {labels.count(l)}" for l in sorted(set(labels))) + "\n")
    print("| judge | outcome agreement | abstention accuracy | correctness accuracy (attempts) | unjudged |")
    print("|---|---:|---:|---:|---:|")
    for spec in judges:
        outcomes = [r["outcome"] for r in precisewikiqa.judge_responses([i["response"] for i in items], docs, make_judge(spec))]
        agree = sum(o == l for o, l in zip(outcomes, labels)) / len(items)
        abst = sum((o == "abstained") == (l == "abstained") for o, l in zip(outcomes, labels)) / len(items)
        attempts = [(o, l) for o, l in zip(outcomes, labels) if l != "abstained" and o in ("correct", "hallucinated")]
        corr = sum(o == l for o, l in attempts) / len(attempts) if attempts else float("nan")
        print(f"| `{spec}` | {agree:.1%} | {abst:.1%} | {corr:.1%} (n={len(attempts)}) | {outcomes.count('unjudged')} |")


def nonexistent_refusal_table(judges: list[str]) -> None:
    items = read("does_believe_agreement.jsonl")
    print(f"\nNonExistentRefusal does_believe, {len(items)} hand-labelled responses ('tuning': seen while the rule's "
          "phrases were extended; 'holdout': written afterwards)\n")
    print("| judge | split | n | agreement | believing judged as refusal | refusal judged as believing | unjudged |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for spec in judges:
        records = nonexistent_refusal.judge_responses([i["response"] for i in items], items, make_judge(spec))
        for split in ("tuning", "holdout", "all"):
            chosen = [(r["outcome"], i["label"]) for r, i in zip(records, items) if split in ("all", i["split"])]
            labels = [label for _, label in chosen]
            agree = sum(o == label for o, label in chosen) / len(chosen)
            missed_belief = sum(o == "not_believed" and label == "believed" for o, label in chosen)
            missed_refusal = sum(o == "believed" and label == "not_believed" for o, label in chosen)
            unjudged = sum(o == "unjudged" for o, _ in chosen)
            print(f"| `{spec}` | {split} | {len(chosen)} | {agree:.1%} | {missed_belief} of {labels.count('believed')} | "
                  f"{missed_refusal} of {labels.count('not_believed')} | {unjudged} |")


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
