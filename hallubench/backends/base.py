"""Backend-neutral chat request/response types."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from typing import Protocol, Sequence

Message = dict[str, str]


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request. ``seed`` only matters when sampling."""

    messages: tuple[tuple[str, str], ...]
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 256
    seed: int | None = None

    @classmethod
    def from_messages(cls, messages: Sequence[Message], **params) -> "ChatRequest":
        return cls(tuple((m["role"], m["content"]) for m in messages), **params)

    def message_dicts(self) -> list[Message]:
        return [{"role": role, "content": content} for role, content in self.messages]

    def cache_key(self, backend_identity: str) -> str:
        """Key over backend + model identity + messages + decoding parameters (never secrets)."""
        payload = {"backend": backend_identity, **asdict(self)}
        if self.temperature == 0:
            payload["seed"] = None  # greedy output does not depend on the seed
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Completion:
    """The outcome of one request: ``text`` on success, ``error`` otherwise."""

    text: str | None
    error: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


class Backend(Protocol):
    """A model that answers chat requests in bulk."""

    identity: str  # backend kind + model; part of every cache key

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        """Answer ``requests``; call ``on_result(index, Completion)`` as each finishes (any order)."""
        ...
