"""The import layers (docs/design.md, "Layers"): the shared core (errors, specs, backends, provenance, seeding,
sources, outputs) imports nothing of the project above it; hallu_metrics imports only the core; generators and
lm_eval_tasks import the core and hallu_metrics, never each other; the CLI and reports (the rest of hallubench) sit on
top. An upward import, at module level or inside a function, fails here."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hallubench", "hallu_metrics", "generators", "lm_eval_tasks")
CORE = ("hallubench.errors", "hallubench.specs", "hallubench.backends", "hallubench.provenance", "hallubench.seeding",
        "hallubench.sources", "hallubench.outputs")


def layer(module: str) -> str:
    if module == "hallubench" or any(module == c or module.startswith(c + ".") for c in CORE):
        return "core"
    return module.split(".")[0] if not module.startswith("hallubench") else "app"


ALLOWED = {"core": {"core"}, "hallu_metrics": {"core", "hallu_metrics"},
           "generators": {"core", "hallu_metrics", "generators"},
           "lm_eval_tasks": {"core", "hallu_metrics", "lm_eval_tasks"},
           "app": {"core", "hallu_metrics", "generators", "lm_eval_tasks", "app"}}


def modules() -> list[tuple[str, Path]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            found.append((name, path))
    return found


def project_imports(path: Path) -> set[str]:
    imported = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else [])
        imported.update(n for n in names if n.split(".")[0] in PACKAGES)
    return imported


@pytest.mark.parametrize("name, path", modules(), ids=[name for name, _ in modules()])
def test_no_upward_import(name, path):
    upward = sorted(m for m in project_imports(path) if layer(m) not in ALLOWED[layer(name)])
    assert not upward, f"{name} ({layer(name)}) imports {upward}"


def test_test_support_is_not_shipped():
    """Loopback servers stand in for remote APIs in tests and benchmarks only: no runtime package holds one."""
    assert not [p for package in PACKAGES for p in (ROOT / package).rglob("*loopback*")]
