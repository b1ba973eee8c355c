"""LLM-as-judge over any backend: one cached request per item and check, re-asked once with a
follow-up turn when the reply cannot be read. Options of the judge spec: ``structured=true`` sends each
check's JSON schema as ``response_format``; ``template=PATH`` takes prompts from a user file."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any

from hallu_metrics.judges.base import Check, Verdict
from hallu_metrics.judges.templates import JudgeTemplates
from hallubench.core.backends import ChatRequest, ModelClient
from hallubench.core.backends.base import Message
from hallubench.core.specs import redact

TEMPERATURE = 0.0  # judges decode greedily


class LLMJudge:
    """Greedy judging with parse retries; failed calls become ``failed`` verdicts."""

    def __init__(
        self,
        client: ModelClient,
        parse_retries: int = 1,
        retry_unparseable: bool = False,
        structured: str | bool = "false",
        templates: JudgeTemplates | None = None,
        spec: str | None = None,
    ):
        self.client = client
        self.spec = spec or client.public_spec  # with the judge options, when the spec has any
        self.parse_retries = parse_retries
        self.retry_unparseable = retry_unparseable
        self.structured = {True: "true", False: "false"}.get(structured, structured)  # type: ignore[call-overload]
        self.templates = templates
        self.schema_ignored = False  # said once: the server sent a reply that does not follow the schema
        self.schema_refused = False  # structured=auto and the server refused response_format: not sent again
        self.reads = {"schema": 0, "free_text": 0}  # readable replies that followed the schema, and the others

    def conversation(self, check: Check, item: dict) -> list[Message]:
        """The first turn for ``item``: the user's template for this check if the file names it, else the
        check's own prompt."""
        if self.templates is not None and self.templates.covers(check.name):
            return self.templates.messages(check.name, item)
        if check.messages is None:
            raise ValueError(f"check {check.name!r} has no LLM prompt")
        return check.messages(item)

    async def ask(self, check: Check, item: dict) -> Verdict:
        if check.parse is None:
            raise ValueError(f"check {check.name!r} has no LLM prompt")
        conversation = self.conversation(check, item)
        schema = check.structured if self.structured != "false" and not self.schema_refused else None
        response_format = schema.response_format if schema is not None else None

        def read(text: str):
            return check.parse(schema.reply_text(text) if schema is not None else text)

        verdict = Verdict(None, "unparseable", "")
        first: str | None = None  # the first reply, when it could not be read and the reminder was sent
        for _ in range(self.parse_retries + 1):
            request = ChatRequest.from_messages(
                conversation, temperature=TEMPERATURE, max_tokens=check.max_tokens, response_format=response_format
            )
            completion = await self.client.acomplete(request)
            if schema is not None and self.structured == "auto" and refused_schema(completion):
                self._schema_refused(completion.error or "")
                schema = response_format = None
                request = ChatRequest.from_messages(conversation, temperature=TEMPERATURE, max_tokens=check.max_tokens)
                completion = await self.client.acomplete(request)
            if completion.cached and self.retry_unparseable and read(completion.text or "") is None:
                completion = await self.client.acomplete(request, refresh=True)  # re-ask a cached unreadable reply
            if not completion.ok:
                return Verdict(None, "failed", redact(completion.error or ""), first)
            text = redact(completion.text or "")
            if schema is not None and not self.schema_ignored and not schema.conforms(text):
                self.schema_ignored = True
                print(f"[hallubench] judge {self.spec}: its server ignored response_format (structured="
                      f"{self.structured}): a {check.name} reply does not follow the JSON schema; replies are read as "
                      "free text", file=sys.stderr)
            parsed = read(text)
            if parsed is not None:
                self.reads["schema" if schema is not None and schema.conforms(text) else "free_text"] += 1
                return Verdict(parsed, "ok", text, first)
            verdict = Verdict(None, "unparseable", text, first)
            first = text if first is None else first
            conversation = conversation + [
                {"role": "assistant", "content": text},
                {"role": "user", "content": check.reminder},
            ]
        return verdict

    def _schema_refused(self, error: str) -> None:
        if not self.schema_refused:
            print(f"[hallubench] judge {self.spec}: its server refused response_format ({error[:120]}); judging "
                  "without it (structured=auto), replies read as free text", file=sys.stderr)
        self.schema_refused = True

    def report(self) -> dict[str, Any]:
        """Call counts, and how replies were read: the structured mode, whether the server refused the schema, the
        readable replies that followed it and those read as free text."""
        self.client.report()
        return {**asdict(self.client.stats), "structured": {
            "mode": self.structured, "refused": self.schema_refused, "read_by_schema": self.reads["schema"],
            "read_as_free_text": self.reads["free_text"]}}


    def close(self) -> None:
        self.client.close()


def refused_schema(completion: Any) -> bool:
    """A failed call that a server which does not support ``response_format`` answers with (HTTP 400 or 422)."""
    return not completion.ok and any(f"HTTP {code} " in (completion.error or "") for code in (400, 422))
