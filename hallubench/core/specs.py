"""Parsing and validation of spec strings such as ``openai:base_url=http://h/v1,model=m,concurrency=8``,
and redaction of secrets from any text that may be printed or recorded."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hallubench.core.errors import HallubenchError

# Keys whose values must never be written anywhere (results, cards, logs, cache keys).
SECRET_KEYS = frozenset({"api_key", "token", "password"})

# Shapes of credentials that must never reach stderr, logs or results, whatever server echoed them.
_SECRET_PATTERNS = (
    re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]{12,}"),
    re.compile(r"\b(sk|hf|gh[pousr])[-_][A-Za-z0-9_-]{8,}"),
    re.compile(
        r"(?i)([\"']?(?:api[_-]?key|access[_-]?token|auth[_-]?token|secret[_-]?key|password)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',}]{4,}"
    ),
)
_URL_CREDENTIALS = re.compile(r"(?i)\b(https?:/{1,2})[^/@\s|]+@")  # one slash: a URL read as a Path
_REMEMBERED_SECRETS: set[str] = set()
REDACTED = "[redacted]"


def remember_secret(value: str | None) -> None:
    """Register a configured secret (e.g. an API key read from the environment) for ``redact``."""
    if value and len(value) >= 4:
        _REMEMBERED_SECRETS.add(value)


def redact_known(text: str) -> str:
    """``text`` with the secrets known to this process (remembered API keys of at least 16 characters, URL
    credentials) replaced, and nothing else: safe for model replies, whose other token-shaped strings may be content
    (and whose words must not vanish because a local server's key is a word such as ``EMPTY``)."""
    text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    for secret in sorted(_REMEMBERED_SECRETS, key=len, reverse=True):
        if len(secret) >= 16:
            text = text.replace(secret, REDACTED)
    return text


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every configured or remembered secret, every token-shaped string and every
    ``user:password@`` part of a URL replaced."""
    text = _URL_CREDENTIALS.sub(rf"\1{REDACTED}@", text)
    for secret in sorted({*secrets, *_REMEMBERED_SECRETS}, key=len, reverse=True):
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _SECRET_PATTERNS[0].sub(lambda m: f"{m.group(1)} {REDACTED}", text)
    text = _SECRET_PATTERNS[1].sub(REDACTED, text)
    return _SECRET_PATTERNS[2].sub(lambda m: m.group(1) + REDACTED, text)


@dataclass(frozen=True)
class Spec:
    """A parsed ``kind:key=value,...`` spec."""

    kind: str
    args: dict[str, Any] = field(default_factory=dict)

    def public(self) -> str:
        """The spec as a string that is safe to write to results and cards."""
        parts = [redact(f"{k}={v}") for k, v in self.args.items() if k not in SECRET_KEYS]
        return self.kind + (":" + ",".join(parts) if parts else "")


def typed_value(text: str) -> Any:
    """A spec value typed as lm-eval types ``--model_args`` values (``lm_eval.utils.handle_arg_string``, restated:
    importing lm_eval.utils loads requests, jinja2 and numpy, a third of a second of every command that parses a spec;
    tests/test_import_weight.py holds the two equal): quoted -> the text inside, true / false / none (any case) ->
    True / False / None, digits with an optional sign -> int, what ``float()`` reads -> float, else the text."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    words = {"true": True, "false": False, "none": None}
    if text.lower() in words:
        return words[text.lower()]
    if text.lstrip("+-").isdigit():
        try:
            return int(text)
        except ValueError:  # "+-5", "²": not an int; float() decides
            pass
    try:
        return float(text)
    except ValueError:
        return text


def parse_spec(text: str, known_kinds: tuple[str, ...]) -> Spec:
    """Parse ``kind[:k=v,...]`` (values typed as lm-eval types ``--model_args``); raises HallubenchError
    naming the problem: an unknown kind, a pair without ``=``, an empty key or value, a key given twice."""
    if not text or not text.strip():
        raise HallubenchError("empty spec string")
    kind, _, rest = text.strip().partition(":")
    if kind not in known_kinds:
        raise HallubenchError(
            f"bad spec {text!r}: unknown kind {kind!r} (expected one of: {', '.join(known_kinds)})"
        )
    args: dict[str, Any] = {}
    for pair in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = (piece.strip() for piece in pair.partition("="))
        if not equals or not key:
            raise HallubenchError(f"bad {kind} spec: expected key=value pairs separated by commas, got {pair!r}")
        if not value:
            raise HallubenchError(f"bad {kind} spec: {key}= has no value")
        if key in args:
            raise HallubenchError(f"bad {kind} spec: {key} is given twice")
        args[key] = typed_value(value)
    secrets = SECRET_KEYS & set(args)
    if secrets:
        raise HallubenchError(
            f"bad spec: put secrets in an environment variable and name it with api_key_env=..., not {sorted(secrets)}"
        )
    return Spec(kind, args)


def check_keys(kind: str, args: dict[str, Any], allowed: set[str], required: tuple[str, ...]) -> None:
    """Refuse unknown keys and missing required ones."""
    unknown = set(args) - allowed
    if unknown:
        raise HallubenchError(f"bad {kind} spec: unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")
    missing = [key for key in required if key not in args]
    if missing:
        names = " and ".join(f"{key}=..." for key in missing)
        given = f" (given: {', '.join(sorted(args))})" if args else ""
        raise HallubenchError(f"bad {kind} spec: {names} {'are' if len(missing) > 1 else 'is'} missing{given}")


def int_value(kind: str, args: dict[str, Any], key: str, default: int, minimum: int) -> int:
    """``args[key]`` as a whole number >= ``minimum`` (``default`` when absent)."""
    value = args.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise HallubenchError(f"bad {kind} spec: {key} must be a whole number >= {minimum}, got {value!r}")
    return value


def float_value(kind: str, args: dict[str, Any], key: str, default: float, minimum: float, maximum: float,
                allow_minimum: bool = True) -> float:
    """``args[key]`` as a finite number in [minimum, maximum] (or (minimum, maximum])."""
    value = args.get(key, default)
    number = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
    low_ok = number >= minimum if allow_minimum else number > minimum
    if not (math.isfinite(number) and low_ok and number <= maximum):
        bound = ">=" if allow_minimum else ">"
        raise HallubenchError(
            f"bad {kind} spec: {key} must be a finite number {bound} {minimum:g} and <= {maximum:g}, got {value!r}"
        )
    return number


def str_value(kind: str, args: dict[str, Any], key: str, default: str | None = None) -> str:
    """``args[key]`` as text (numbers such as ``model=7`` are kept as typed)."""
    value = args.get(key, default)
    if value is None or isinstance(value, bool):
        raise HallubenchError(f"bad {kind} spec: {key} must be text, got {value!r}")
    return str(value)
