"""Which names a new benchmark may take: a lower-case Python identifier that no benchmark, package, generator,
`evaluate` module, docs page or lm-eval task, group or tag of hallubench already uses."""

from __future__ import annotations

import keyword
import re
from pathlib import Path

import yaml

from hallubench.core.errors import HallubenchError
from hallubench.scaffold.layout import PIECES, piece_path

_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")
_FOLDER_PIECES = ("declaration", "generator", "docs_page", "task_yaml")
SHARED_FOLDERS = ("hallu_metrics", "generators")  # beside benchmarks/ and the generators: shared layers and modules


class LooseLoader(yaml.SafeLoader):
    """Reads lm-eval YAML without resolving ``!function`` tags."""


LooseLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def lm_eval_names(tasks_dir: Path) -> dict[str, str]:
    """Every task, group and tag name the YAML files under ``tasks_dir`` declare -> the file declaring it."""
    names = {}
    for path in sorted(tasks_dir.rglob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=LooseLoader) or {}
        for key in ("task", "group", "tag"):
            value = data.get(key)
            if isinstance(value, str) and (key != "task" or "group" not in data):
                names.setdefault(value, f"{key} in {path.relative_to(tasks_dir.parent)}")
    return names


def check_identifier(what: str, value: str) -> None:
    if not _IDENTIFIER.fullmatch(value) or keyword.iskeyword(value):
        raise HallubenchError(f"{what} {value!r} is not a lower-case Python identifier (a-z, 0-9, _; not a keyword)")


def check_new_name(root: Path, name: str, family: str) -> None:
    """Refuse a name that is taken (one line naming where); a new family's group name must be free as well."""
    from hallu_metrics.evaluate_metrics import module_names
    from hallu_metrics.registry import BENCHMARKS, TASKS
    from hallubench_generators.cli import GENERATORS

    check_identifier("benchmark name", name)
    check_identifier("family", family)
    if name in BENCHMARKS or name in TASKS:
        raise HallubenchError(f"benchmark {name!r} exists (hallu_metrics/registry.py)")
    for piece in _FOLDER_PIECES:
        taken = root / piece_path(piece, name, family)
        if taken.exists() or (PIECES[piece].endswith("/__init__.py") and taken.parent.exists()):
            shown = taken.parent if taken.name == "__init__.py" else taken
            raise HallubenchError(f"{name!r} exists: {shown.relative_to(root)}")
    for layer in SHARED_FOLDERS:  # a shared layer's or a top-level module's name: `hallu_metrics.longform`, ...
        for taken in (root / layer / name, root / layer / f"{name}.py"):
            if taken.exists():
                raise HallubenchError(f"{name!r} exists: {taken.relative_to(root)}")
    if name in GENERATORS or name in module_names():
        raise HallubenchError(f"{name!r} is already a generator or an evaluate module of hallubench")
    declared = lm_eval_names(root / piece_path("task_families", name, family))
    if name in declared:
        raise HallubenchError(f"{name!r} clashes with an lm-eval name of hallubench ({declared[name]})")
    if not (root / piece_path("family_readme", name, family)).parent.is_dir():
        if family == name or family in declared:
            clash = "the task itself" if family == name else declared[family]
            raise HallubenchError(f"new family {family!r} would declare a group of that name, which clashes with "
                                  f"{clash}")
