"""The scaffold's insertions into existing files, each at a clear anchor. An anchor that is missing is an error
naming the file and the anchor (nothing is written then); a central list that is gone (derived since) is skipped
only where the insertion says so."""

from __future__ import annotations

import re

from hallubench.core.errors import HallubenchError


def _find(text: str, anchor: str, path: str, start: int = 0) -> int:
    at = text.find(anchor, start)
    if at < 0:
        raise HallubenchError(f"{path}: cannot find {anchor.strip()!r} to insert into")
    return at


def before_anchor(text: str, anchor: str, insert: str, path: str) -> str:
    """``insert`` placed just after the newline that starts ``anchor``."""
    at = _find(text, anchor, path) + 1
    return text[:at] + insert + text[at:]


def before_closing(text: str, opening: str, closing: str, line: str, path: str) -> str:
    """``line`` inserted as the last entry of the block that starts at ``opening`` and ends at ``closing``."""
    at = _find(text, closing, path, _find(text, opening, path))
    return text[:at + 1] + line + text[at + 1:]  # ``closing`` starts with the newline ending the block's last entry


def sorted_import(text: str, parent: str, leaf: str, path: str) -> str:
    """``leaf`` added, in order, to the parenthesised ``from parent import (...)`` block."""
    block = re.search(rf"^from {re.escape(parent)} import \(\n(.*?)^\)", text, re.M | re.S)
    if block is None:
        raise HallubenchError(f"{path}: cannot find 'from {parent} import (' to insert into")
    names = sorted({*(n.strip().rstrip(",") for n in block.group(1).splitlines() if n.strip()), leaf})
    return text[:block.start(1)] + "".join(f"    {n},\n" for n in names) + text[block.end(1):]


def after_table(text: str, header: str, row: str, path: str) -> str:
    """``row`` appended to the markdown table whose header line is ``header``."""
    at = text.index("\n", _find(text, header, path)) + 1
    while text.startswith("|", at):
        at = text.index("\n", at) + 1
    return text[:at] + row + text[at:]


def _section(text: str, heading: str, path: str) -> tuple[int, int]:
    """(start of the body, end) of the section under ``heading`` (a line), up to the next heading of any level."""
    start = _find(text, f"\n{heading}\n", path) + len(heading) + 2
    found = re.compile(r"^#{1,6} ", re.M).search(text, start)
    return start, found.start() if found else len(text)


def into_list(text: str, heading: str, entry: str, path: str, first: bool) -> str:
    """``entry`` (lines ending in a newline) added to the list of the section under ``heading``: as its first item
    (``first``) or its last."""
    start, end = _section(text, heading, path)
    body = text[start:end]
    items = [m.start() for m in re.finditer(r"^[-*] ", body, re.M)]
    if first and items:
        at = start + items[0]
        return text[:at] + entry + text[at:]
    kept = body.rstrip("\n")
    return text[:start] + kept + ("\n" if kept else "") + entry + "\n" + text[end:]


def into_yaml_list(text: str, key: str, item: str, path: str) -> str:
    """``- item`` added after the last item of the top-level YAML list ``key``."""
    found = re.search(rf"^{re.escape(key)}:\n((?:[ \t]+- .*\n)+)", text, re.M)
    if found is None:
        raise HallubenchError(f"{path}: cannot find the list {key!r} to insert into")
    indent = re.match(r"[ \t]+", found.group(1)).group(0)
    return text[:found.end()] + f"{indent}- {item}\n" + text[found.end():]
