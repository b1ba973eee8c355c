"""Judge tokens per call and per response of each judged benchmark (issue 26, item 4), with the project's own prompts
and a real tokenizer (SmolLM2-135M-Instruct's, the plan's stand-in), beside the fixed part of the reference
implementations' prompt templates where they are public.

Each check is rendered twice: with empty fields (its fixed part: instructions, few-shot examples, markers), and on a
representative item written for this script (a 15-word question, a one-sentence answer, a 25-word claim, five
120-word passages). Tokens are of the message texts, without chat-template tokens. The reference figures were
measured the same way (placeholders emptied) on the templates at the commits named in ``REFERENCES``; only the
counts are kept here, never the templates.

    python benchmarks/tokens_per_response.py     # prints the markdown table of docs/benchmarks.md
"""

from __future__ import annotations

from typing import Any

from hallu_metrics.benchmarks.nonexistent_refusal.checks import DOES_BELIEVE
from hallu_metrics.benchmarks.precisewikiqa.checks import ABSTENTION, CORRECTNESS
from hallu_metrics.longform.atomic_facts import ATOMIC_FACTS
from hallu_metrics.longform.claims import CLAIM_EXTRACTION
from hallu_metrics.longform.refusal import KNOWLEDGEABLE
from hallu_metrics.longform.verification import VERIFICATION
from hallu_metrics.short_answer_qa.checks import GRADE
from hallubench.reporting.plan import load_counter

HALLULENS = "https://github.com/facebookresearch/HalluLens/blob/80307ac6bc9fd396a38b7a0de4196b931611b728/"
SIMPLE_EVALS = "https://github.com/openai/simple-evals/blob/ee3b0318d8d1d9d72755a4120879be65f7c07e9e/"
# check -> (reference template, its fixed tokens with SmolLM2-135M-Instruct's tokenizer, source)
REFERENCES: dict[str, tuple[str, int, str]] = {
    "abstention": ("ABSTAIN_PROMPT_UPDATED", 1226, HALLULENS + "tasks/shortform/precise_wikiqa.py"),
    "correctness": ("IS_HALLUCINATION_RESPONSE", 192, HALLULENS + "tasks/shortform/precise_wikiqa.py"),
    "knowledgeable": ("ABSTAIN_PROMPT", 723, HALLULENS + "tasks/longwiki/prompt_templates.py"),
    "claim_extraction": ("EXTRACT_CLAIMS_TEMPLATE", 3272, HALLULENS + "tasks/longwiki/prompt_templates.py"),
    "verification": ("VERIFICATION_TEMPLATE_W_REFERENCE_RETRIEVAL", 142,
                     HALLULENS + "tasks/longwiki/prompt_templates.py"),
    "does_believe": ("ABSTAIN_PROMPT_PLACE_NONSENSE (generated entities; mixed animals: 896)", 497,
                     HALLULENS + "tasks/refusal_test/prompt.py"),
    "short_answer_grade": ("GRADER_TEMPLATE", 1460, SIMPLE_EVALS + "simpleqa_eval.py"),
}
QUESTION = "In which year did the Sydney Harbour Bridge, the steel arch bridge in Australia, open to traffic?"
ANSWER = "The Sydney Harbour Bridge opened to traffic in March 1932, after eight years of construction work."
CLAIM = "The Sydney Harbour Bridge opened to road and rail traffic in March 1932 after eight years of construction."
PASSAGE = " ".join(["The bridge carries rail, vehicular, bicycle and pedestrian traffic between the central business "
                    "district and the North Shore."] * 6)
SNIPPET = f"{ANSWER} <SOS>{ANSWER}<EOS> It is the tallest steel arch bridge in the world."
CASES: list[tuple[str, Any, dict[str, Any]]] = [  # benchmark, check, representative item
    ("precisewikiqa", ABSTENTION, {"question": QUESTION, "gold": "1932", "response": ANSWER}),
    ("precisewikiqa", CORRECTNESS, {"question": QUESTION, "gold": "1932", "response": ANSWER}),
    ("simpleqa / popqa", GRADE, {"question": QUESTION, "golds": ["1932"], "response": ANSWER}),
    ("mixed / generated entities", DOES_BELIEVE, {"name": "Harbour Bridge", "type": "bridge", "prompt": QUESTION,
                                                  "response": ANSWER}),
    ("longwiki", KNOWLEDGEABLE, {"question": QUESTION, "response": " ".join([ANSWER] * 8)}),
    ("longwiki", CLAIM_EXTRACTION, {"question": QUESTION, "snippet": SNIPPET, "sentence": ANSWER}),
    ("longwiki / wildhallucinations", VERIFICATION,
     {"claim": CLAIM, "passages": [{"title": "Sydney Harbour Bridge", "text": PASSAGE}] * 5}),
    ("wildhallucinations", ATOMIC_FACTS, {"entity": "Sydney Harbour Bridge", "sentence": ANSWER}),
]


def empty(value: Any) -> Any:
    """The same shape with every text emptied."""
    if isinstance(value, str):
        return ""
    if isinstance(value, list):
        return [empty(v) for v in value[:1]]
    if isinstance(value, dict):
        return {k: empty(v) for k, v in value.items()}
    return value


def main() -> None:
    counter = load_counter("openai:base_url=http://stand-in/v1,model=stand-in")

    def tokens(check: Any, item: dict[str, Any]) -> int:
        return sum(counter.text(m["content"]) for m in check.messages(item))

    print(f"tokens: {counter.name}\n")
    print("| benchmark | check | fixed tokens | tokens on the item | reference template | reference fixed tokens |")
    print("|---|---|---:|---:|---|---:|")
    for benchmark, check, item in CASES:
        name, ref_tokens, source = REFERENCES.get(check.name, ("not public", None, ""))
        ref = f"[{name}]({source})" if source else name
        print(f"| {benchmark} | {check.name} | {tokens(check, empty(item))} | {tokens(check, item)} | {ref} | "
              f"{ref_tokens if ref_tokens is not None else 'n/a'} |")


if __name__ == "__main__":
    main()
