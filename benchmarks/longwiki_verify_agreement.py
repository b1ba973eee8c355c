"""Agreement of the claim verifier with hand labels (LongWiki / long-form evidence layer).

Each record of the shipped ``verification`` set (hallu_metrics/benchmarks/longwiki/labels/) is a claim, the top-5
passages
the LongWiki evidence step retrieved for it (knowledge store: the 32 GoodWiki sample articles + the 10,033 offline
Vital Articles leads; MiniLM ranking) and a hand label: true (supported) = the passages state or directly imply
everything in the claim. ``source`` is ``smollm2`` (a sentence of a SmolLM2-135M answer to a LongWiki-style
question, read in its context) or ``written`` (a claim written for the sample: paraphrases of passage facts and
near misses).
``split``: ``tuning`` (labelled before any verifier rule ran on it, then seen while the rule was tuned) or
``holdout`` (written and labelled after the rule was frozen, before running it).
Usage: python benchmarks/longwiki_verify_agreement.py [--judges rule openai:...]
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from hallu_metrics.judges.judge_set import JudgeSet
from hallu_metrics.judges.kinds import public_spec
from hallu_metrics.labelled_sets import labelled_set, read_labelled
from hallu_metrics.longform.verification import VERIFICATION
from hallubench.core.backends.aio import run_sync


def read() -> list[dict]:
    return [record for _, record in read_labelled(labelled_set("longwiki", "verification"))]


def verdicts(items: list[dict], spec: str) -> list[bool | None]:
    """Each claim's verdict from judge ``spec`` (None = unreadable or failed)."""
    import asyncio

    judges = JudgeSet({"judge": spec})

    async def all_items() -> list:
        judge = judges.get("judge")
        return await asyncio.gather(*(
            judge.ask(VERIFICATION, {"claim": i["claim"], "passages": i["passages"]}) for i in items
        ))

    try:
        return [v.label if v.ok else None for v in run_sync(all_items())]
    finally:
        judges.close()


def groups(items: list[dict]) -> Iterator[tuple[str, list[int]]]:
    """(group name, item positions): each split, each split x source, then all items."""
    for split in dict.fromkeys(i["split"] for i in items):
        in_split = [k for k, i in enumerate(items) if i["split"] == split]
        yield split, in_split
        for source in dict.fromkeys(items[k]["source"] for k in in_split):
            yield f"{split} / {source}", [k for k in in_split if items[k]["source"] == source]
    yield "all", list(range(len(items)))


def row(spec: str, name: str, labels: list[bool], judged: list[bool | None]) -> str:
    n = len(labels)
    agree = sum(j == label for j, label in zip(judged, labels)) / n
    said_yes = [label for j, label in zip(judged, labels) if j]
    truly_yes = [j for j, label in zip(judged, labels) if label]
    precision = f"{sum(said_yes) / len(said_yes):.1%}" if said_yes else "n/a"
    recall = f"{sum(bool(j) for j in truly_yes) / len(truly_yes):.1%}" if truly_yes else "n/a"
    unjudged = sum(j is None for j in judged)
    return (f"| `{spec}` | {name} | {n} | {sum(labels)} | {agree:.1%} | {precision} | {recall} | "
            f"{sum(bool(j) for j in judged) / n:.1%} vs {sum(labels) / n:.1%} | {unjudged} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judges", nargs="+", default=["rule"], help="judge specs (default: the rule stand-in)")
    args = parser.parse_args()
    items = read()
    labels = [bool(i["label"]) for i in items]
    print(f"\n{len(items)} hand-labelled claims, {sum(labels)} supported\n")
    print("| judge | split | n | supported (hand) | agreement | precision of 'supported' | recall of 'supported' "
          "| share judged supported vs hand | unjudged |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for spec in args.judges:
        judged = verdicts(items, spec)
        for name, positions in groups(items):
            print(row(public_spec(spec), name, [labels[k] for k in positions], [judged[k] for k in positions]))


if __name__ == "__main__":
    main()
