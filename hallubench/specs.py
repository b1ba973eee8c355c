"""Parsing of spec strings such as ``openai:base_url=http://h/v1,model=m,concurrency=8``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lm_eval.utils import simple_parse_args_string

from hallubench.errors import HallubenchError

# Keys whose values must never be written anywhere (results, cards, logs, cache keys).
SECRET_KEYS = frozenset({"api_key", "token", "password"})


@dataclass(frozen=True)
class Spec:
    """A parsed ``kind:key=value,...`` spec."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)

    def public(self) -> str:
        """The spec as a string that is safe to write to results and cards."""
        parts = [f"{k}={v}" for k, v in self.args.items() if k not in SECRET_KEYS]
        return self.kind + (":" + ",".join(parts) if parts else "")


def parse_spec(text: str, known_kinds: tuple[str, ...]) -> Spec:
    """Parse ``kind[:k=v,...]``; raises HallubenchError naming the problem."""
    if not text or not text.strip():
        raise HallubenchError("empty spec string")
    kind, _, rest = text.strip().partition(":")
    if kind not in known_kinds:
        raise HallubenchError(
            f"bad spec {text!r}: unknown kind {kind!r} (expected one of: {', '.join(known_kinds)})"
        )
    try:
        args = simple_parse_args_string(rest) if rest else {}
    except ValueError as exc:
        raise HallubenchError(f"bad spec {text!r}: expected key=value pairs separated by commas") from exc
    secrets = SECRET_KEYS & set(args)
    if secrets:
        raise HallubenchError(
            f"bad spec: put secrets in an environment variable and name it with api_key_env=..., not {sorted(secrets)}"
        )
    return Spec(kind, args)
