"""Agreement of PreciseWikiQA judges with hand labels (benchmarks/data/judge_agreement.jsonl).

Each line holds a question, its gold answer, a response (SmolLM2-135M outputs plus hand-written
chat-model-style replies, see `source`) and a hand label: abstained / correct / hallucinated.
Prints, per judge spec, the 3-way outcome agreement, abstention accuracy and correctness accuracy
on the items labelled as attempts.
Usage: python benchmarks/judge_agreement.py [--judges rule smollm2]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from hallu_metrics import precisewikiqa
from hallu_metrics.judges import make_judge

DATA = Path(__file__).resolve().parent / "data" / "judge_agreement.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=["rule", "smollm2"])
    args = parser.parse_args()
    items = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    docs = [{"question": i["question"], "answer": i["gold"]} for i in items]
    labels = [i["label"] for i in items]
    print(f"\n{len(items)} hand-labelled responses: " + ", ".join(f"{l} {labels.count(l)}" for l in sorted(set(labels))) + "\n")
    print("| judge | outcome agreement | abstention accuracy | correctness accuracy (attempts) | unjudged |")
    print("|---|---:|---:|---:|---:|")
    for spec in args.judges:
        records = precisewikiqa.judge_responses([i["response"] for i in items], docs, make_judge(spec))
        outcomes = [r["outcome"] for r in records]
        agree = sum(o == l for o, l in zip(outcomes, labels)) / len(items)
        abst = sum((o == "abstained") == (l == "abstained") for o, l in zip(outcomes, labels)) / len(items)
        attempts = [(o, l) for o, l in zip(outcomes, labels) if l != "abstained" and o in ("correct", "hallucinated")]
        corr = sum(o == l for o, l in attempts) / len(attempts) if attempts else float("nan")
        print(f"| `{spec}` | {agree:.1%} | {abst:.1%} | {corr:.1%} (n={len(attempts)}) | {outcomes.count('unjudged')} |")


if __name__ == "__main__":
    main()
