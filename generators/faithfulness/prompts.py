"""What the faithfulness generator sends its rewriting model (``--perturbation llm``): Jing et al.'s Table 7 template
(instruction, the sentence between markers, ``REWRITE:``) with our instructions per kind, greedy as in the paper's
Appendix A.1."""

from __future__ import annotations

from hallubench.core.backends import ChatRequest

REWRITE_TOKENS = 160

# Table 7's template (instruction, the sentence between markers, "REWRITE:"), instructions in our words.
_INSTRUCTIONS = {
    "intrinsic": ("Rewrite the SENTENCE below so that it contradicts one of its facts. Change exactly one "
                  "thing: a number, a date, a name or other named entity, or turn a statement into its "
                  "negation. Keep everything else word for word and make the change subtle."),
    "extrinsic": ("Extend the SENTENCE below with exactly one new fact that it does not contain: a piece of "
                  "general knowledge, a related person, place, organisation or event. Keep the original "
                  "sentence word for word and make the addition sound natural and subtle."),
}


def rewrite_messages(sentence: str, kind: str) -> list[dict[str, str]]:
    """The rewrite prompt: instruction, then the sentence between ``=====`` markers, then ``REWRITE:``."""
    content = (f"{_INSTRUCTIONS[kind]} Reply with the rewritten sentence only.\n=====\nSENTENCE:\n{sentence}\n"
               "=====\nREWRITE:")
    return [{"role": "user", "content": content}]


def rewrite_request(sentence: str, kind: str) -> ChatRequest:
    """The greedy rewrite request (the paper's Appendix A.1)."""
    return ChatRequest.from_messages(rewrite_messages(sentence, kind), temperature=0.0, max_tokens=REWRITE_TOKENS)
