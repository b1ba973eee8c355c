"""The viewer page: one self-contained HTML file (styles, script and data inline; no network, works from file://).
Untrusted text (prompts, responses, web pages, judge replies) travels only inside a JSON data block with ``<``,
``>``, ``&`` and U+2028/2029 escaped, and the script renders it with ``textContent``."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
from importlib.resources import files
from typing import Any

from hallubench.reporting.scoring import json_safe

PAGE_HEAD = "<!DOCTYPE html>\n<!-- written by hallubench view -->\n"  # how the page starts: replaceable by view
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embed_json(data: Any) -> str:
    """``data`` as JSON that is safe inside ``<script type="application/json">``: no ``</script>``, no ``<!--``,
    no character entity and no line separator can appear (all are escaped inside JSON strings)."""
    text = json.dumps(json_safe(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.translate(str.maketrans(_ESCAPES))


ROW_FIELDS = ("t", "m", "u", "d", "k", "o", "g", "f")  # what the table and filters need of an item, parsed at once
SHOWN_CHARS = 160  # prompt and response in the table are cut to this; the item's detail has them whole


def _row(item: dict[str, Any]) -> dict[str, Any]:
    return {**{k: item[k] for k in ROW_FIELDS}, "q": item["q"][:SHOWN_CHARS], "r": item["r"][:SHOWN_CHARS]}


def render(data: dict[str, Any], title: str) -> str:
    """The whole page for the gathered ``data`` (hallubench.reporting.viewer.items.gather). The table's rows are one
    small
    JSON block, parsed when the page opens; the evidence passages (first line) and each item's detail (one line per
    item) follow as gzip in base64, unpacked by the browser's DecompressionStream once the table is drawn: the
    browser reads several times fewer bytes from disk, which is most of the opening time of a large page."""
    static = files("hallubench.reporting.viewer") / "static"
    template = (static / "view.html").read_text(encoding="utf-8")
    index = {"tasks": data["tasks"], "models": data["models"], "runs": data["runs"],
             "items": [_row(item) for item in data["items"]]}
    lines = [embed_json(data["evidence"])]
    lines += [embed_json({k: v for k, v in item.items() if k not in ROW_FIELDS}) for item in data["items"]]
    details = base64.b64encode(gzip.compress("\n".join(lines).encode("utf-8"), compresslevel=6, mtime=0)).decode()
    parts = {"TITLE": html.escape(title), "CSS": (static / "view.css").read_text(encoding="utf-8"),
             "JS": (static / "view.js").read_text(encoding="utf-8"), "DATA": embed_json(index), "DETAILS": details}
    return PAGE_HEAD + re.sub(r"\{\{(TITLE|CSS|JS|DATA|DETAILS)\}\}", lambda m: parts[m[1]], template)
