"""Agreement of the embedded rule grader of `simpleqa_hallu` / `popqa_hallu` with hand labels.

The shipped ``short_answer_grade`` set of simpleqa_hallu (hallu_metrics/benchmarks/simpleqa/labels/) holds replies to
SimpleQA
questions, each labelled CORRECT / INCORRECT / NOT_ATTEMPTED by hand before the rule was run: split ``tuning``, the
40 replies measured first (rows drawn with random.Random("0:simpleqa_rule_agreement"), docs/benchmarks.md), and
split ``holdout``, written later. Prints, per split and for all, agreement, the confusion matrix and the misses.

    .venv/bin/python benchmarks/simpleqa_rule_agreement.py
"""

from __future__ import annotations

from collections import Counter

from hallu_metrics.labelled_sets import labelled_set, read_labelled
from hallu_metrics.short_answer_qa import LETTERS, rule_grade


def main() -> None:
    labelled = labelled_set("simpleqa_hallu", "short_answer_grade")
    for split in ("tuning", "holdout", "all"):
        print(f"\n{split}:")
        table([record for _, record in read_labelled(labelled, split)])


def table(items: list[dict]) -> None:
    pairs = [(item["label"], rule_grade(item)) for item in items]
    agree = sum(hand == rule for hand, rule in pairs)
    print(f"agreement: {agree}/{len(pairs)} = {agree / len(pairs):.1%}")
    confusion = Counter(pairs)
    labels = list(LETTERS.values())
    print("hand \\ rule | " + " | ".join(labels))
    for hand in labels:
        print(f"{hand} | " + " | ".join(str(confusion[(hand, rule)]) for rule in labels))
    for item, (hand, rule) in zip(items, pairs):
        if hand != rule:
            print(f"- row {item['row']}: hand {hand}, rule {rule}: {item['response']!r} (gold {item['golds'][0]!r})")


if __name__ == "__main__":
    main()
