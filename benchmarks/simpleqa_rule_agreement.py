"""Agreement of the embedded rule grader of `simpleqa_hallu` / `popqa_hallu` with hand labels.

benchmarks/data/simpleqa_rule_agreement.jsonl holds 40 replies to SimpleQA questions (rows drawn with
random.Random("0:simpleqa_rule_agreement")), each labelled CORRECT / INCORRECT / NOT_ATTEMPTED by hand before the
rule was run. Prints overall agreement, per-label agreement and the confusion matrix (docs/benchmarks.md).

    .venv/bin/python benchmarks/simpleqa_rule_agreement.py
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from hallu_metrics.short_answer_qa import LETTERS, rule_grade

DATA = Path(__file__).resolve().parent / "data" / "simpleqa_rule_agreement.jsonl"


def main() -> None:
    items = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = [(item["label"], rule_grade({"response": item["response"], "golds": [item["answer"]]})) for item in items]
    agree = sum(hand == rule for hand, rule in pairs)
    print(f"agreement: {agree}/{len(pairs)} = {agree / len(pairs):.1%}")
    confusion = Counter(pairs)
    labels = list(LETTERS.values())
    print("hand \\ rule | " + " | ".join(labels))
    for hand in labels:
        print(f"{hand} | " + " | ".join(str(confusion[(hand, rule)]) for rule in labels))
    for item, (hand, rule) in zip(items, pairs):
        if hand != rule:
            print(f"- row {item['row']}: hand {hand}, rule {rule}: {item['response']!r} (gold {item['answer']!r})")


if __name__ == "__main__":
    main()
