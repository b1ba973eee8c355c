"""Output paths checked before any work starts, and files replaced atomically with nothing left behind.

Every check raises ``HallubenchError`` with one line naming the option, so a run that would fail to
write its result fails before it spends model calls, not after.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hallubench.errors import HallubenchError


def check_writable_location(path: Path, what: str) -> None:
    """``path`` (file or folder, existing or not) can be created: its nearest existing ancestor is a
    folder in which a file can really be made (a probe, not permission bits, so read-only mounts and
    root-owned places are caught too). Nothing is left behind."""
    ancestor = path.absolute().parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise HallubenchError(f"{what} {path}: {ancestor} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=ancestor):
            pass
    except OSError as exc:
        raise HallubenchError(f"{what} {path}: cannot write in {ancestor} ({exc.strerror or exc})") from exc


def check_output_file(path: Path | str, what: str, suffix: str | None = None) -> None:
    """Refuse, before any work, an output file path that cannot be written: an existing folder, a
    path without a file name (``.``, ``..``, ending in ``/``), a wrong ``suffix`` (e.g. ``.png``), an
    unwritable or missing-as-file parent. ``path`` may be the raw command-line string (a trailing
    ``/`` is only visible there)."""
    text = str(path)
    target = Path(text)
    if not text or text.endswith(("/", os.sep)) or target.name in ("", ".", ".."):
        raise HallubenchError(f"{what} {text!r}: expected a file name, got a folder")
    if target.is_dir():
        raise HallubenchError(f"{what} {target}: is an existing folder; expected a file name")
    if suffix and target.suffix.lower() != suffix:
        raise HallubenchError(f"{what} {target}: expected a file name ending in {suffix}")
    if target.exists() and not os.access(target, os.W_OK):
        raise HallubenchError(f"{what} {target}: exists and is not writable")
    check_writable_location(target, what)


def hidden_sibling(path: Path, tag: str) -> Path:
    """``.NAME.TAG-PID`` next to ``path`` (keeping the suffix, so format-by-extension writers work)."""
    return path.with_name(f".{path.stem}.{tag}-{os.getpid()}{path.suffix}")


@contextmanager
def replaced_atomically(path: Path) -> Iterator[Path]:
    """Yield a hidden temporary sibling to write; on success it replaces ``path`` in one rename, on any
    failure (including Ctrl-C) it is removed and ``path`` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = hidden_sibling(path, "tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically; an unwritable place is one ``HallubenchError``.
    Lone surrogates are written as ``\\udXXX`` escapes (inside a JSON string: the same text again)."""
    try:
        with replaced_atomically(path) as tmp:
            tmp.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise HallubenchError(f"cannot write {path}: {exc.strerror or exc}") from exc
