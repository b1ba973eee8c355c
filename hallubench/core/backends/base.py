"""Backend-neutral chat request/response types."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Protocol

Message = dict[str, str]
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request. ``seed`` only matters when sampling. ``response_format`` is a JSON schema
    (as canonical JSON text, so the request stays hashable) that servers with structured outputs constrain the
    reply to; None sends no ``response_format``."""

    messages: tuple[tuple[str, str], ...]
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = None
    response_format: str | None = None

    @classmethod
    def from_messages(cls, messages: Sequence[Message], **params) -> ChatRequest:
        return cls(tuple((m["role"], m["content"]) for m in messages), **params)

    def message_dicts(self) -> list[Message]:
        """The messages as sent to a model: lone surrogates (text that no UTF-8 encoder accepts, e.g. from a
        broken JSON escape in a response) become U+FFFD, so such text is judged like any other."""
        return [{"role": role, "content": LONE_SURROGATE.sub("\ufffd", content)} for role, content in self.messages]

    def cache_key(self, backend_identity: str) -> str:
        """Key over backend + model identity + messages + decoding parameters (never secrets)."""
        payload = {
            "backend": backend_identity,
            "messages": self.messages,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "seed": None if self.temperature == 0 else self.seed,  # greedy output does not depend on the seed
        }  # the fields spelled out: dataclasses.asdict deep-copies every message (a tenth of a judge call's CPU)
        if self.response_format is not None:  # only when set, so keys of free-text requests stay as they were
            payload["response_format"] = self.response_format
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Usage:
    """Tokens one call cost, as the server's ``usage`` reports them (OpenAI chat completions) or as a local
    backend's tokenizer counts them. ``cached_prompt_tokens``: the prompt tokens the server says it served from its
    own prefix cache (``prompt_tokens_details.cached_tokens``), None when it does not say."""

    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int | None = None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str | None) -> Usage | None:
        """The usage stored with a cache entry; None for entries written before usage was recorded."""
        if not text:
            return None
        try:
            data = json.loads(text)
            return cls(int(data["prompt_tokens"]), int(data["completion_tokens"]),
                       None if data.get("cached_prompt_tokens") is None else int(data["cached_prompt_tokens"]))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class Completion:
    """The outcome of one request: ``text`` on success, ``error`` otherwise; ``usage`` when known (stored with the
    cache entry, so a cached completion carries the usage of the call that made it); ``seconds`` of the call."""

    text: str | None
    error: str | None = None
    cached: bool = False
    usage: Usage | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error is None


class Backend(Protocol):
    """A model that answers chat requests in bulk."""

    identity: str  # backend kind + model; part of every cache key

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        """Answer ``requests``; call ``on_result(index, Completion)`` as each finishes (any order)."""
        ...
