"""ANAH-v2's prompts (Gu et al., 2024; HalluLens section 4.2): the answering prompt of the model under test and the
annotator's chained three-turn conversation (facts? / reference information / hallucination label)."""

from __future__ import annotations

from hallu_metrics.judges.prompts import DATA_NOTICE, data_block

NO_REFERENCE = "<No Reference Information>"

# The model under test: the question answered from the reference document (ANAH-v2 "w/ reference"), in the
# question's language; this project's wording.
ANSWER_PROMPTS = {
    "en": "Answer the question using the reference document below.\n\nReference document:\n{document}\n\n"
          "Question: {question}",
    "zh": "请根据下面的参考文档回答问题。\n\n参考文档：\n{document}\n\n问题：{question}",
}

_SYSTEM = ("You annotate hallucinations in an answer to a question, one answer sentence at a time, against a "
           f"reference document, in three steps.\n{DATA_NOTICE}")


def _step1(item: dict) -> str:
    return (
        "Step 1. Does the answer sentence state verifiable facts: specific, objective information such as figures, "
        "dates, events, names or scientific statements that reliable sources could confirm? Opinions, subjective "
        "judgements, greetings and remarks about the answer itself are not facts.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        "Reply <Facts Present> or <No Facts> only."
    )


def _step2(item: dict) -> str:
    return (
        "Step 2. From the reference document, extract every piece of information relevant to the question and to "
        "the answer sentence, whether it agrees with the sentence, partly agrees or conflicts with it. List the "
        "pieces in document order, separated by <SEP>. If nothing in the document is relevant, reply "
        f"{NO_REFERENCE} only.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        f"{data_block('reference document', item['document'])}"
    )


def _step3(item: dict) -> str:
    return (
        "Step 3. Compare the answer sentence with the reference points you extracted.\n"
        "- <No Hallucination>: the sentence agrees with the reference points and adds nothing that conflicts.\n"
        "- <Contradictory>: the sentence clearly conflicts with the reference points.\n"
        "- <Unverifiable>: the sentence states something the reference points neither support nor contradict.\n"
        f"{data_block('question', item['question'])}\n{data_block('answer sentence', item['sentence'])}\n"
        f"{data_block('reference points', item['reference'])}\n"
        "Reply with one label only."
    )


def _conversation(item: dict, steps: int) -> list[dict[str, str]]:
    """The chained conversation up to turn ``steps``: earlier turns with the judge's own earlier replies."""
    turns = [_step1, _step2, _step3][:steps]
    replies = ("facts_reply", "reference_reply")  # read only for the turns that follow them
    messages = [{"role": "system", "content": _SYSTEM}]
    for i, turn in enumerate(turns):
        messages.append({"role": "user", "content": turn(item)})
        if i < steps - 1:
            messages.append({"role": "assistant", "content": item[replies[i]]})
    return messages


def facts_messages(item: dict) -> list[dict[str, str]]:
    """Turn 1: does the sentence state facts?"""
    return _conversation(item, 1)


def reference_messages(item: dict) -> list[dict[str, str]]:
    """Turn 2 (after turn 1 and the judge's reply): the reference information relevant to the sentence."""
    return _conversation(item, 2)


def hallucination_messages(item: dict) -> list[dict[str, str]]:
    """Turn 3 (after turns 1-2 and the judge's replies): the sentence's label against the reference points."""
    return _conversation(item, 3)
