"""LLM-as-judge over any backend: one cached request per item and check, re-asked once with a
follow-up turn when the reply cannot be read."""

from __future__ import annotations

from dataclasses import asdict

from hallu_metrics.judges.base import Check, Verdict
from hallubench.backends import ChatRequest, ModelClient
from hallubench.specs import redact


class LLMJudge:
    """Greedy judging with parse retries; failed calls become ``failed`` verdicts."""

    def __init__(self, client: ModelClient, parse_retries: int = 1, retry_unparseable: bool = False):
        self.client = client
        self.spec = client.public_spec
        self.parse_retries = parse_retries
        self.retry_unparseable = retry_unparseable

    async def ask(self, check: Check, item: dict) -> Verdict:
        if check.messages is None or check.parse is None:
            raise ValueError(f"check {check.name!r} has no LLM prompt")
        conversation = check.messages(item)
        verdict = Verdict(None, "unparseable", "")
        for _ in range(self.parse_retries + 1):
            request = ChatRequest.from_messages(conversation, temperature=0.0, max_tokens=check.max_tokens)
            completion = await self.client.acomplete(request)
            if completion.cached and self.retry_unparseable and check.parse(completion.text or "") is None:
                completion = await self.client.acomplete(request, refresh=True)  # re-ask a cached unreadable reply
            if not completion.ok:
                return Verdict(None, "failed", redact(completion.error or ""))
            text = redact(completion.text or "")
            parsed = check.parse(text)
            if parsed is not None:
                return Verdict(parsed, "ok", text)
            verdict = Verdict(None, "unparseable", text)
            conversation = conversation + [
                {"role": "assistant", "content": text},
                {"role": "user", "content": check.reminder},
            ]
        return verdict

    def report(self) -> dict[str, int]:
        self.client.report()
        return asdict(self.client.stats)

    def close(self) -> None:
        self.client.close()
