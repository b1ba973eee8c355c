"""Structured outputs: the JSON schema a check's reply must follow when the judge spec says
``structured=true``. Servers with guided decoding (OpenAI, vLLM, SGLang, llama.cpp) then constrain the reply
to the schema; the check's free-text reader still reads it (it is the default and the fallback), so a server
that ignores ``response_format`` costs nothing but the constraint.

``to_text`` turns a decoded schema-shaped reply into the text form the check's reader expects, for checks
whose prompt asks for something other than JSON (bullet lists, tags, letters); checks whose prompt already
asks for a JSON object need none."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class StructuredOutput:
    """A check's reply schema and, where the reader reads plain text, how to turn a schema reply into it."""

    schema: dict[str, Any]
    to_text: Callable[[Any], str] | None = None

    @property
    def response_format(self) -> str:
        """The schema as canonical JSON text (part of the request and of its cache key)."""
        return json.dumps(self.schema, sort_keys=True, separators=(",", ":"))

    def conforms(self, reply: str) -> bool:
        """Whether ``reply`` is JSON that follows the schema (what a server honouring ``response_format`` sends).
        Checked for the schema shapes this module builds (objects of booleans, integers in a range, strings from a
        set, strings, lists of strings), so a judge call never imports a schema library (score's start-up);
        ``tests/test_judge_options.py`` holds it equal to ``jsonschema`` on every check's schema."""
        try:
            value = json.loads(reply)
        except ValueError:
            return False
        return _follows(value, self.schema)

    def reply_text(self, reply: str) -> str:
        """What the check's reader reads: the schema reply turned into the reader's text form, or the reply
        unchanged when it is not such a JSON value (a server that ignored the schema)."""
        if self.to_text is None:
            return reply
        try:
            return self.to_text(json.loads(reply))
        except (ValueError, TypeError, KeyError, AttributeError):
            return reply


_TYPES: dict[str, Callable[[Any], bool]] = {
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _follows(value: Any, schema: dict[str, Any]) -> bool:
    """``value`` against one of this module's schemas: type, enum, minimum / maximum, array items, required and
    no additional properties."""
    if not _TYPES[schema["type"]](value):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if ("minimum" in schema and value < schema["minimum"]) or ("maximum" in schema and value > schema["maximum"]):
        return False
    if schema["type"] == "array":
        return all(_follows(item, schema["items"]) for item in value)
    if schema["type"] == "object":
        properties = schema.get("properties", {})
        return (set(schema.get("required", ())) <= set(value)
                and (schema.get("additionalProperties", True) or set(value) <= set(properties))
                and all(_follows(v, properties[k]) for k, v in value.items() if k in properties))
    return True


def _object(title: str, key: str, value_schema: dict[str, Any]) -> dict[str, Any]:
    return {"title": title, "type": "object", "properties": {key: value_schema}, "required": [key],
            "additionalProperties": False}


def boolean(key: str) -> StructuredOutput:
    """``{"key": true|false}`` (the prompt asks for this object; read by ``parse_json_bool``)."""
    return StructuredOutput(_object(key, key, {"type": "boolean"}))


def label(key: str, labels: Sequence[str], as_text: Callable[[str], str] | None = None) -> StructuredOutput:
    """``{"key": one of labels}``; ``as_text`` maps the label to the reader's text form when the prompt asks
    for plain text (e.g. a grade letter or an ANAH tag)."""
    to_text = (lambda value: as_text(value[key])) if as_text else None
    return StructuredOutput(_object(key, key, {"type": "string", "enum": list(labels)}), to_text)


def integer(key: str, low: int, high: int) -> StructuredOutput:
    """``{"key": n}`` with ``low <= n <= high`` (the prompt asks for this object)."""
    return StructuredOutput(_object(key, key, {"type": "integer", "minimum": low, "maximum": high}))


def text_list(key: str, empty_text: str) -> StructuredOutput:
    """``{"key": [text, ...]}`` read as a bullet list, and an empty list as ``empty_text`` (the reader's
    nothing-to-list marker)."""

    def to_text(value: Any) -> str:
        items = [item for item in (_list_item(text) for text in value[key]) if item]
        return "\n".join(f"- {item}" for item in items) if items else empty_text

    return StructuredOutput(_object(key, key, {"type": "array", "items": {"type": "string"}}), to_text)


def _list_item(text: Any) -> str:
    """One element of a schema list as one bullet line: its lines joined (a line break must not cut it), a bullet
    the judge repeated ("- The Nile ...") dropped; blank when the element is empty."""
    return _BULLET.sub("", " ".join(str(text).split()), count=1)


_BULLET = re.compile(r"^(?:[-*\u2022]|\d+[.)])\s+")


def text_field(key: str, empty_text: str = "") -> StructuredOutput:
    """``{"key": text}`` whose text is what the reader reads (e.g. reference points separated by markers); an empty
    text reads as ``empty_text`` (the reader's nothing-found marker), not as an unreadable reply."""
    return StructuredOutput(_object(key, key, {"type": "string"}),
                            lambda value: str(value[key]).strip() or empty_text)


def reasoned_integer(key: str, low: int, high: int) -> StructuredOutput:
    """``{"reasoning": text, "key": n}``, reasoning first (the rubric judge explains before it scores)."""
    schema = _object(key, "reasoning", {"type": "string"})
    schema["properties"][key] = {"type": "integer", "minimum": low, "maximum": high}
    schema["required"] = ["reasoning", key]
    return StructuredOutput(schema)
