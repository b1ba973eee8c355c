"""Judge prompts from a user file (``template=PATH`` in an LLM judge spec), e.g. to run a benchmark's
official grader wording for comparability with published numbers without the project shipping it.

The file is YAML (or JSON): a mapping from check names to a template, either the user message as text or
``{system: TEXT, user: TEXT}``. ``{field}`` inserts the field of the judged item (the same fields the
built-in prompt uses: ``hallubench judge-templates`` lists them), ``{{`` and ``}}`` are literal
braces; nothing else is interpreted (no attribute or index access). Lists are inserted one element per line.
A data block written as ``<<<BEGIN NAME>>>`` / ``<<<END NAME>>>`` lines (with or without a ``#code``) is rendered as
the built-in prompts render theirs: its inserted text cleaned of marker look-alikes, its markers coded for that text.
A field inserted outside such a block goes in raw (the file's wording is kept verbatim), so text in it can pose as
instructions: when the judge is built, one line on stderr per check names the file and each such field, unless the
check's built-in prompt inserts it raw too (NonExistentRefusal's entity ``{type}``).
Checks the file does not name keep their built-in prompt. The reply is read by the check's own reader.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from hallu_metrics.judges.base import Check
from hallu_metrics.judges.prompts import data_block
from hallubench.core.backends.base import Message
from hallubench.core.errors import HallubenchError

_BLOCK = re.compile(r"<<<BEGIN (?P<name>[A-Z0-9 _]+?)(?: #\w+)?>>>\n(?P<body>.*?)\n<<<END (?P=name)(?: #\w+)?>>>",
                    re.DOTALL)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([A-Za-z_]\w*)\}")
_STRAY_BRACE = re.compile(r"\{[^{}]*\}")
_LOOKED_AT: set[tuple[str, str]] = set()  # (file hash, check) pairs whose raw fields were warned about or were none




def placeholders(text: str) -> set[str]:
    """The field names a template inserts."""
    return {m.group(1) for m in _PLACEHOLDER.finditer(text) if m.group(1)}


def raw_fields(template: Mapping[str, str]) -> set[str]:
    """The fields a template (its messages by role) inserts outside its data blocks."""
    return set().union(*(placeholders(_BLOCK.sub("", text)) for text in template.values()))


def _as_text(value: Any) -> str:
    """A field as inserted text: lists one element per line (mappings such as evidence passages as
    ``key: value`` lines, elements separated by a blank line), anything else as ``str``."""
    if isinstance(value, (list, tuple)):
        if any(isinstance(element, Mapping) for element in value):
            return "\n\n".join(_as_text(element) for element in value)
        return "\n".join(map(str, value))
    if isinstance(value, Mapping):
        return "\n".join(f"{key}: {element}" for key, element in value.items())
    return str(value)


def _insert(text: str, item: Mapping[str, Any], where: str) -> str:
    def value(match: re.Match) -> str:
        token = match.group(0)
        if token in ("{{", "}}"):
            return token[0]
        name = match.group(1)
        if name not in item:
            raise HallubenchError(f"{where} inserts {{{name}}}, which this check does not give (it gives: "
                                  f"{', '.join(sorted(item))})")
        return _as_text(item[name])

    return _PLACEHOLDER.sub(value, text)


def _render(text: str, item: Mapping[str, Any], where: str) -> str:
    """``text`` with fields inserted, each data block rendered by ``data_block`` around its inserted body."""
    pieces, position = [], 0
    for block in _BLOCK.finditer(text):
        pieces.append(_insert(text[position:block.start()], item, where))
        pieces.append(data_block(block["name"], _insert(block["body"], item, where)))
        position = block.end()
    pieces.append(_insert(text[position:], item, where))
    return "".join(pieces)


@dataclass(frozen=True)
class JudgeTemplates:
    """The templates of one file, by check name, and the file's SHA-256 (recorded with the judge spec)."""

    path: str
    sha256: str
    by_check: dict[str, dict[str, str]]

    @property
    def public(self) -> str:
        """How results and cards name the file: its name and content hash, never its folder."""
        return f"{Path(self.path).name}@sha256:{self.sha256[:16]}"

    def covers(self, check_name: str) -> bool:
        return check_name in self.by_check

    def messages(self, check_name: str, item: Mapping[str, Any]) -> list[Message]:
        """The conversation for ``item`` from the file's template for ``check_name``."""
        template = self.by_check[check_name]
        where = f"judge template {Path(self.path).name} ({check_name})"
        conversation = []
        if "system" in template:
            conversation.append({"role": "system", "content": _render(template["system"], item, where)})
        conversation.append({"role": "user", "content": _render(template["user"], item, where)})
        return conversation

    def warn_raw_fields(self, checks: Iterable[Check]) -> None:
        """One line on stderr per check whose template inserts fields raw, outside a data block, that its built-in
        prompt (from ``checks``) keeps in blocks; once per file content and check in a process."""
        builtins: dict[str, Check] = {}
        for check in checks:
            if check.messages is not None:
                builtins.setdefault(check.name, check)
        for name, template in sorted(self.by_check.items()):
            if (self.sha256, name) in _LOOKED_AT:
                continue
            _LOOKED_AT.add((self.sha256, name))
            raw = raw_fields(template)
            if raw and name in builtins:
                raw -= raw_fields(builtin_template(builtins[name])[1])
            if raw:
                fields = ", ".join("{" + field + "}" for field in sorted(raw))
                print(f"[hallubench] judge template {Path(self.path).name} ({name}): warning: inserted raw, outside "
                      f"a data block: {fields}; text in a raw field can pose as instructions to the judge (write "
                      "each between <<<BEGIN NAME>>> and <<<END NAME>>> lines to have it rendered as a data block)",
                      file=sys.stderr)

    def check_fields(self, checks: Iterable[Any]) -> None:
        """Refuse, when the judge is built (before lm-eval generates), a template inserting a field its check's items
        do not have (``Check.fields``)."""
        for check in checks:
            if not self.covers(check.name) or not check.fields:
                continue
            inserted = set().union(*(placeholders(text) for text in self.by_check[check.name].values()))
            unknown = sorted(inserted - set(check.fields))
            if unknown:
                raise HallubenchError(f"judge template {Path(self.path).name} ({check.name}) inserts {{{unknown[0]}}}, "
                                      f"which this check does not give (it gives: {', '.join(check.fields)})")

    def check_names(self, known: Iterable[str]) -> None:
        """Refuse a file that names no known check (a typo would silently keep the built-in prompt)."""
        unknown = sorted(set(self.by_check) - set(known))
        if unknown:
            raise HallubenchError(f"judge template {self.path}: unknown check(s) {', '.join(unknown)} (known: "
                                  f"{', '.join(sorted(known))})")


def _template(name: str, value: Any, path: str) -> dict[str, str]:
    if isinstance(value, str):
        value = {"user": value}
    if not isinstance(value, dict) or "user" not in value or set(value) - {"system", "user"} or not all(
        isinstance(text, str) and text.strip() for text in value.values()
    ):
        raise HallubenchError(f"judge template {path}: {name!r} must be a text or {{system: TEXT, user: TEXT}}")
    for text in value.values():
        leftover = _STRAY_BRACE.findall(_PLACEHOLDER.sub("", text))
        if leftover:
            raise HallubenchError(f"judge template {path}: {name!r} has {leftover[0]!r}; fields are written "
                                  "{name} and literal braces {{ }}")
    return dict(value)


def load_templates(path: str) -> JudgeTemplates:
    """Read and validate a template file (one-line errors naming the file)."""
    file = Path(path).expanduser()
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise HallubenchError(f"cannot read judge template {path}: {exc.strerror or exc}") from exc
    try:
        loaded = yaml.safe_load(data.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise HallubenchError(f"judge template {path} is not UTF-8 YAML/JSON: {str(exc).splitlines()[0]}") from exc
    if not isinstance(loaded, dict) or not loaded:
        raise HallubenchError(f"judge template {path}: expected a mapping of check names to templates")
    by_check = {str(name): _template(str(name), value, path) for name, value in loaded.items()}
    return JudgeTemplates(str(file), hashlib.sha256(data).hexdigest(), by_check)


class _FieldRecorder(dict):
    """An item whose every field reads as its own placeholder, recording which fields a prompt reads."""

    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def __missing__(self, key: str) -> str:
        if key not in self.read:
            self.read.append(key)
        return "{" + key + "}"

    def get(self, key: str, default: Any = None) -> Any:
        return self[key]


def builtin_template(check: Any) -> tuple[list[str], dict[str, str]]:
    """(fields, template) of a check's built-in prompt: the fields it reads and its conversation with each field
    as a placeholder, literal braces doubled: a starting point for a template file. A prompt that reshapes a
    field (e.g. formats each evidence passage) gives its fields and an empty template."""
    item = _FieldRecorder()
    try:
        conversation = check.messages(item)
    except (TypeError, KeyError, ValueError, AttributeError, IndexError):
        return list(item.read), {}
    if [m["role"] for m in conversation] not in (["user"], ["system", "user"]):
        return list(item.read), {}  # a multi-turn protocol (ANAH): a file gives its first turn only
    fields = re.compile("|".join(re.escape("{" + name + "}") for name in item.read) or r"(?!x)x")

    def escaped(text: str) -> str:
        pieces = fields.split(text)
        kept = fields.findall(text)
        doubled = [piece.replace("{", "{{").replace("}", "}}") for piece in pieces]
        return "".join(p + k for p, k in zip(doubled, kept + [""]))

    return list(item.read), {message["role"]: escaped(message["content"]) for message in conversation}
