"""Shared-prefix share of every judge check's prompt (issue 37, item 3): the tokens identical across items, which
vLLM's automatic prefix cache and providers' prompt caching serve without recomputing them.

For each check of every benchmark (``Benchmark.checks`` in the registry) that an LLM judge answers, the prompt is
rendered for the first ``--items`` items of the check's shipped labelled set (real questions, responses, claims and
passages; ``hallu_metrics.labelled_sets``) and tokenized as a server sees it: the chat template applied with the
generation prompt, with the plan's tokenizer (SmolLM2-135M-Instruct's stand-in, as
``benchmarks/tokens_per_response.py``). Shared share = longest token prefix common to all those prompts / their mean
prompt tokens. "Fixed after the item" is the longest token suffix common to them (fixed text the cache cannot
serve because item text comes before it). "First item field" names the item text where the prompts first differ
(the end of the shared part; the marker of the data block holding it carries a hash of that text, so sharing ends a
few tokens earlier).

    python benchmarks/shared_prefix.py [--items 8]     # prints the markdown table of docs/benchmarks.md
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from hallu_metrics.judges.base import Check
from hallu_metrics.labelled_sets import labelled_set, read_labelled
from hallu_metrics.registry import BENCHMARKS
from hallubench.reporting.plan import TokenCounter, load_counter


def prompt_ids(counter: TokenCounter, check: Check, item: dict[str, Any]) -> list[int]:
    """Token ids of the check's prompt on ``item``, chat template and generation prompt included."""
    text = counter.tokenizer.apply_chat_template(check.messages(item), tokenize=False, add_generation_prompt=True)
    return counter.tokenizer.encode(text, add_special_tokens=False)


def common_prefix(sequences: list[list[int]]) -> int:
    """Length of the longest prefix every sequence shares."""
    shortest = min(sequences, key=len)
    for i, token in enumerate(shortest):
        if any(seq[i] != token for seq in sequences):
            return i
    return len(shortest)


def first_field(check: Check, items: list[dict[str, Any]]) -> str:
    """The field of the first item whose text comes first after the character where the items' prompts first
    differ (texts under 4 characters, such as a language code, are not looked for)."""
    texts = ["\n".join(m["content"] for m in check.messages(item)) for item in items]
    differs = next((i for i, chars in enumerate(zip(*texts)) if len(set(chars)) > 1), min(map(len, texts)))
    placed = [(texts[0].find(value.strip(), differs), field) for field, value in items[0].items()
              if isinstance(value, str) and len(value.strip()) >= 4]
    return min((pos, field) for pos, field in placed if pos >= 0)[1] if any(p >= 0 for p, _ in placed) else "-"


def rows(counter: TokenCounter, items_per_check: int) -> list[tuple[str, str, int, int, float, float, int, str]]:
    """(benchmarks, check, items, shared tokens, mean prompt tokens, shared share, fixed tokens after the item, first
    field) per distinct check."""
    seen: dict[str, list[str]] = {}
    checks: dict[str, tuple[str, Check]] = {}
    for benchmark in BENCHMARKS.values():
        for check in benchmark.checks:
            if check.messages is not None:
                seen.setdefault(check.name, []).append(benchmark.name)
                checks.setdefault(check.name, (benchmark.name, check))
    out = []
    for key, (benchmark, check) in checks.items():
        items = [record for _, record in read_labelled(labelled_set(benchmark, check.name))[:items_per_check]]
        items = [{field: record[field] for field in check.fields} for record in items]
        ids = [prompt_ids(counter, check, item) for item in items]
        shared, mean = common_prefix(ids), statistics.mean(len(i) for i in ids)
        names = " / ".join(dict.fromkeys(seen[key]))
        suffix = common_prefix([list(reversed(i)) for i in ids])
        out.append((names, check.name, len(items), shared, mean, shared / mean, suffix, first_field(check, items)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=8, help="items per check (from its labelled set)")
    args = parser.parse_args()
    counter = load_counter("openai:base_url=http://stand-in/v1,model=stand-in")
    print(f"tokens: {counter.name}, {args.items} labelled items per check\n")
    print("| benchmark | check | items | shared prefix tokens | mean prompt tokens | shared share | fixed after the "
          "item | first item field |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for names, check, n, shared, mean, share, suffix, field in rows(counter, args.items):
        print(f"| {names} | {check} | {n} | {shared:,} | {mean:,.0f} | {share:.0%} | {suffix} | {field} |")


if __name__ == "__main__":
    main()
