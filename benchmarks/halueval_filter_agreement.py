"""Agreement of hallubench's HaluEval filter step with the paper's own filtering choices.

HaluEval's qa_one-turn_data.json and qa_multi-turn_data.json hold the two sampled candidates (one-pass
and conversational schema) for the first 500 QA records; qa_data_first1000.json holds the candidate
the paper's filter kept, in the same order. On the records where the two candidates differ and the kept
one equals one of them (compared case- and punctuation-insensitively), the judge runs our filter step
(hallubench_generators.halueval.sampling.filter_pairs: same prompt, seeded order, fallbacks) and we count how often
it keeps the paper's choice.
Usage: python benchmarks/halueval_filter_agreement.py --judge smollm2 [--n 10] [--data DIR] [--cache PATH]
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from hallu_metrics.benchmarks.halueval import TASKS, Pattern
from hallubench.core.backends import CallCache, backend_spec, make_client
from hallubench.core.official_files.tables import read_json_records
from hallubench_generators.halueval.sampling import Sample, Settings, filter_pairs

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "halueval"
FILES = {"one-pass": "qa_one-turn_data.json", "conversational": "qa_multi-turn_data.json"}
UNRECORDED = Pattern("unrecorded", "", "", {})  # the candidate files do not say which pattern was used


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def decisive_pairs(data: Path) -> tuple[list[dict], list[tuple[Sample, Sample]], dict[int, str]]:
    """Official records, the candidate pairs that can be scored, and the schema the paper kept for each."""
    official = read_json_records(str(data / "qa_data_first1000.json"))
    candidates = {schema: read_json_records(str(data / name)) for schema, name in FILES.items()}
    pairs, kept = [], {}
    for i, (one, multi) in enumerate(zip(candidates["one-pass"], candidates["conversational"])):
        if not one["question"] == multi["question"] == official[i]["question"]:
            raise SystemExit(f"record {i}: the candidate files are not aligned with qa_data_first1000.json")
        texts = {"one-pass": one["hallucinated_answer"], "conversational": multi["hallucinated_answer"]}
        chosen = [s for s, t in texts.items() if _norm(t) == _norm(official[i]["hallucinated_answer"])]
        if _norm(texts["one-pass"]) != _norm(texts["conversational"]) and len(chosen) == 1:
            pairs.append(
                (
                    Sample(i, "one-pass", UNRECORDED, texts["one-pass"]),
                    Sample(i, "conversational", UNRECORDED, texts["conversational"]),
                )
            )
            kept[i] = chosen[0]
    return official, pairs, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", required=True, help="backend spec of the filter judge, e.g. smollm2")
    parser.add_argument("--n", type=int, help="score only the first N decisive records (default: all)")
    parser.add_argument("--data", type=Path, default=DATA, help=f"folder of the three QA files (default {DATA})")
    parser.add_argument("--seed", type=int, default=0, help="seed of the order the two candidates are shown in")
    parser.add_argument(
        "--cache", type=Path, help="SQLite call cache (default $HALLUBENCH_CACHE or ~/.cache/hallubench)"
    )
    args = parser.parse_args()
    official, pairs, kept = decisive_pairs(args.data)
    scored = pairs[: args.n]
    if not scored:
        raise SystemExit("no record to score (--n must be at least 1)")
    client = make_client(backend_spec(args.judge), CallCache(args.cache))
    start = time.perf_counter()
    decided = filter_pairs(official, scored, client, TASKS["qa"], Settings(task="qa", n=len(scored), seed=args.seed))
    seconds = time.perf_counter() - start
    client.report()
    agree = sum(winner.schema == kept[i] for i, (winner, _, _) in decided.items())
    parsed = {i: winner for i, (winner, _, how) in decided.items() if how == "filter"}
    agree_parsed = sum(winner.schema == kept[i] for i, winner in parsed.items())
    paper_multi = sum(kept[a.index] == "conversational" for a, _ in scored)
    judge_multi = sum(winner.schema == "conversational" for winner, _, _ in decided.values())
    n = len(scored)
    print(f"\n{len(pairs)} decisive records of 500; scored {n} with `{args.judge}` in {seconds:.1f} s\n")
    print(
        "| judge | scored | agreement with the paper | unparsed verdicts (first shown kept) | agreement on "
        "parsed verdicts "
        "| judge kept conversational | paper kept conversational |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(
        f"| `{args.judge}` | {n} | {agree / n:.1%} ({agree}) | {n - len(parsed)} | {agree_parsed} of {len(parsed)} "
        f"| {judge_multi} | {paper_multi} |"
    )


if __name__ == "__main__":
    main()
