"""LLM-as-judge over any backend: one batched, concurrent, cached pass per check, then one
follow-up turn for the replies that could not be read."""

from __future__ import annotations

from dataclasses import asdict
from typing import Sequence

from hallubench.backends import ChatRequest, ModelClient
from hallu_metrics.judges.base import Check, Verdict


class LLMJudge:
    """Greedy judging with parse retries; failed calls become ``failed`` verdicts."""

    def __init__(self, client: ModelClient, parse_retries: int = 1):
        self.client = client
        self.spec = client.public_spec
        self.parse_retries = parse_retries

    def run(self, check: Check, items: Sequence[dict], desc: str = "") -> list[Verdict]:
        conversations = [check.messages(item) for item in items]
        verdicts: list[Verdict | None] = [None] * len(items)
        pending = list(range(len(items)))
        for attempt in range(self.parse_retries + 1):
            if not pending:
                break
            requests = [
                ChatRequest.from_messages(conversations[i], temperature=0.0, max_tokens=check.max_tokens) for i in pending
            ]
            label = desc or f"judge:{check.name}"
            completions = self.client.complete(requests, desc=label if attempt == 0 else f"{label} (re-ask)")
            still_pending = []
            for i, completion in zip(pending, completions):
                if not completion.ok:
                    verdicts[i] = Verdict(None, "failed", completion.error or "")
                    continue
                parsed = check.parse(completion.text or "")
                if parsed is not None:
                    verdicts[i] = Verdict(parsed, "ok", completion.text or "")
                    continue
                verdicts[i] = Verdict(None, "unparseable", completion.text or "")
                conversations[i] = conversations[i] + [
                    {"role": "assistant", "content": completion.text or ""},
                    {"role": "user", "content": check.reminder},
                ]
                still_pending.append(i)
            pending = still_pending
        return verdicts  # type: ignore[return-value]

    def report(self) -> dict[str, int]:
        self.client.report()
        return asdict(self.client.stats)
