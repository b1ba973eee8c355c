"""Output paths checked before any work starts, and files replaced atomically with nothing left behind.

Every check raises ``HallubenchError`` with one line naming the option, so a run that would fail to
write its result fails before it spends model calls, not after. An existing file is replaced only when
hallubench wrote it (recognised by a marker inside the file, see :func:`written_by`) or the user passed
``--overwrite``; an output path that names an input of the same run is always refused. Temporaries left by
killed runs (``.NAME.tmp-PID``) are removed by the next write to the same path.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from hallubench.core.errors import HallubenchError


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


MARKER = "hallubench"  # JSON "written_by", PNG "Software", first line of Markdown, SQLite application_id
MARKDOWN_MARK = "<!-- written by hallubench -->"
SQLITE_APPLICATION_ID = 0x48424E43  # "HBNC": PRAGMA application_id of every SQLite file hallubench builds
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_TEMPORARY = re.compile(r"\.(?P<stem>.*)\.(?P<tag>tmp|old)\d*-(?P<pid>\d+)(?P<suffix>.*)")


def hidden_sibling(path: Path, tag: str) -> Path:
    """``.NAME.TAG-PID`` next to ``path`` (keeping the suffix, so format-by-extension writers work); ``tag`` is
    ``tmp`` or ``old``, optionally followed by digits (a thread id)."""
    return path.with_name(f".{path.stem}.{tag}-{os.getpid()}{path.suffix}")


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (another user's process, or a number no process can have, counts as running:
    its temporaries are left alone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        pass
    return True


def remove_stale_temporaries(path: Path) -> None:
    """Remove the hidden temporaries of ``path`` left by processes that no longer run (``kill -9``, power loss),
    saying so; a previous ``path`` moved aside (``.old``) by a run killed before its replacement arrived is put back."""
    if not path.parent.is_dir():
        return
    removed = []
    for entry in sorted(path.parent.glob(f".{glob.escape(path.stem)}.*-*")):
        found = _TEMPORARY.fullmatch(entry.name)
        if not found or (found["stem"], found["suffix"]) != (path.stem, path.suffix) or _alive(int(found["pid"])):
            continue
        if found["tag"] == "old" and not path.exists():
            entry.rename(path)
            print(f"[hallubench] restored {path} from {entry.name}, left by a killed run", file=sys.stderr)
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink()
        removed.append(entry.name)
    if removed:
        print(f"[hallubench] removed {len(removed)} temporary file(s) of killed runs next to {path}: "
              f"{', '.join(removed)}", file=sys.stderr)


def _first_line(path: Path) -> str:
    with path.open("r", encoding="utf-8", errors="replace", newline="") as handle:
        return handle.readline(4096).rstrip("\r\n")


def _png_software(path: Path) -> str | None:
    """The ``Software`` text chunk of a PNG (read chunk by chunk up to the image data; None when absent)."""
    with path.open("rb") as handle:
        if handle.read(8) != _PNG_SIGNATURE:
            return None
        while header := handle.read(8):
            if len(header) < 8:
                return None
            size, kind = int.from_bytes(header[:4], "big"), header[4:]
            if kind in (b"IDAT", b"IEND") or size > 1 << 20:
                return None
            body = handle.read(size + 4)[:size]  # the chunk and its CRC
            if kind == b"tEXt" and body.startswith(b"Software\0"):
                return body.split(b"\0", 1)[1].decode("latin-1")
    return None


def sqlite_application_id(path: Path) -> int | None:
    """The application id in a SQLite file's header (None for anything else)."""
    with path.open("rb") as handle:
        header = handle.read(72)
    if len(header) < 72 or not header.startswith(b"SQLite format 3\0"):
        return None
    return int.from_bytes(header[68:72], "big")


def written_by(path: Path, command: str, csv_header: str | None = None) -> bool:
    """Whether the existing file ``path`` carries the mark of ``hallubench COMMAND``: JSON ``written_by``, PNG
    ``Software``, Markdown's first line, or (a CSV) a first line equal to ``csv_header``, the exact header the command
    writes. Outputs are owned per kind: a knowledge store or call cache (SQLite, marked by its application id and
    replaced only by the command that builds it) is never a score, plan or report output."""
    mark = f"{MARKER} {command}"
    try:
        suffix = path.suffix.lower()
        if suffix == ".csv":
            return csv_header is not None and _first_line(path) == csv_header
        if suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            return isinstance(data, dict) and data.get("written_by") == mark
        if suffix == ".png":
            return _png_software(path) == mark
        if suffix == ".md":
            return _first_line(path) == MARKDOWN_MARK
    except (OSError, ValueError):
        return False
    return False


def check_replaceable(
    path: Path, what: str, command: str, *, overwrite: bool, inputs: Iterable[Path] = (), csv_header: str | None = None
) -> None:
    """Refuse, before any work, an output ``path`` that names an input of this run (always), or an existing file
    that ``hallubench COMMAND`` did not write (unless ``overwrite``)."""
    for source in inputs:
        if _same_file(path, source) or _inside(path, source):
            raise HallubenchError(f"{what} {path} is also an input of this run ({source}); choose another path")
    if path.exists() and not overwrite and not written_by(path, command, csv_header):
        raise HallubenchError(f"{what} {path} exists and was not written by hallubench {command}; pass --overwrite to "
                              "replace it")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` lies inside the existing folder ``folder`` (a store or data set the run reads)."""
    try:
        return folder.is_dir() and path.resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


@contextmanager
def exclusive_output(path: Path, what: str) -> Iterator[None]:
    """Hold an advisory lock on ``path`` (a hidden ``.NAME.lock`` sibling) for a whole run, so that a second run
    writing the same output is refused at once instead of silently replacing the first one's result."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    while True:
        handle = lock.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            raise HallubenchError(f"{what} {path} is being written by another hallubench run; wait for it to end or "
                                  "choose another path") from None
        if lock.exists() and os.path.samestat(os.fstat(handle.fileno()), lock.stat()):
            break  # not a lock file a finishing run unlinked between our open and our lock
        handle.close()
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)
        handle.close()


@contextmanager
def replaced_atomically(path: Path) -> Iterator[Path]:
    """Yield a hidden temporary sibling to write; on success it replaces ``path`` in one rename, on any
    failure (including Ctrl-C) it is removed and ``path`` is left as it was."""
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(path)
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
