"""What the PreciseWikiQA generator sends its question writer (HalluLens 3.1.2): the question request (sampled) and
the answerability request (greedy), messages and decoding parameters."""

from __future__ import annotations

from hallubench.core.backends import ChatRequest
from hallubench_generators.common.quota_fill import PageQuestionSettings


def _question_messages(title: str, reference: str) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": (
                f'Here is an excerpt from the Wikipedia article "{title}":\n\n{reference}\n\n'
                f"Write ONE factual question about {title} that\n"
                "- can be answered from this excerpt alone,\n"
                "- is objective (no opinions),\n"
                "- names its subject fully, so it makes sense without the excerpt,\n"
                "- has a single short answer: a word, a name, a number, a date or a short phrase.\n"
                "Reply with the question only."
            ),
        }
    ]


def _answer_messages(reference: str, question: str) -> list[dict[str, str]]:
    return [
        {
            "role": "user",
            "content": (
                f"Reference text:\n{reference}\n\nQuestion: {question}\n\n"
                "Using only the reference text, give the answer as a word or a short phrase and nothing else. "
                "If the reference text does not answer the question, reply with the single word: unanswerable"
            ),
        }
    ]


def question_request(
    title: str, reference: str, settings: PageQuestionSettings, seed: int | None = None
) -> ChatRequest:
    """The question writer's request (sampled: HalluLens' temperature and top_p)."""
    return ChatRequest.from_messages(_question_messages(title, reference), temperature=settings.question_temperature,
                                     top_p=settings.question_top_p, max_tokens=64, seed=seed)


def answer_request(reference: str, question: str) -> ChatRequest:
    """The greedy answerability request: the question answered from the reference alone."""
    return ChatRequest.from_messages(_answer_messages(reference, question), temperature=0.0, max_tokens=32)
