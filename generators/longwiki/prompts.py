"""What the LongWiki generator sends its prompt writer (HalluLens 3.2.2): the prompt request (sampled, with the
escape reply ``NO_QUESTION``) and the answerability request (greedy mock answer), messages and decoding parameters."""

from __future__ import annotations

from hallubench.core.backends import ChatRequest
from hallubench_generators.common.quota_fill import PageQuestionSettings

NO_QUESTION = "[NO QUESTION]"


def _prompt_messages(title: str, section: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f'Here is a section of the Wikipedia article "{title}":\n\n{section}\n\n'
        f"Write ONE question that a curious user could ask about {title} and that\n"
        "- can be answered fully from this section alone,\n"
        "- needs an answer of at least a paragraph (several sentences): ask to describe, explain or compare,\n"
        "- is objective (no opinions) and names its subject, so it makes sense without the section,\n"
        "- does not mention the section, the article or the text.\n"
        f"If the section does not allow such a question, reply with exactly {NO_QUESTION}\n"
        "Reply with the question only."
    )}]


def _answer_messages(section: str, question: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": (
        f"Reference text:\n{section}\n\nQuestion: {question}\n\n"
        "Answer the question in one paragraph, using only the reference text. If the reference text does not "
        "answer the question, reply with the single word: unanswerable"
    )}]


def prompt_request(title: str, section: str, settings: PageQuestionSettings, seed: int | None = None) -> ChatRequest:
    """The prompt writer's request (sampled: HalluLens' temperature and top_p)."""
    return ChatRequest.from_messages(_prompt_messages(title, section), temperature=settings.question_temperature,
                                     top_p=settings.question_top_p, max_tokens=128, seed=seed)


def answer_request(section: str, question: str) -> ChatRequest:
    """The greedy answerability request: a mock answer from the section alone."""
    return ChatRequest.from_messages(_answer_messages(section, question), temperature=0.0, max_tokens=512)
