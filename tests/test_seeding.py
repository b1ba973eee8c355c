"""One seeding helper (``hallubench.core.seeding``): every random choice of the project derives from the run's seed and
the
decision's scope through it. Its streams are the ones the generators drew before it existed (a set made with a seed
is remade byte for byte), and no package module seeds or draws randomness on its own."""

import ast
import hashlib
import random
from pathlib import Path

import pytest

from hallubench.core.seeding import derived_seed, scope_key, seeded_rng

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hallubench", "hallu_metrics", "generators", "lm_eval_tasks")
HELPER = ROOT / "hallubench" / "core" / "seeding.py"


def draws(rng: random.Random) -> list[float]:
    return [rng.random() for _ in range(5)]


def test_a_scope_gives_the_same_stream_every_time():
    assert draws(seeded_rng(3, "section", "Ada Lovelace")) == draws(seeded_rng(3, "section", "Ada Lovelace"))
    assert derived_seed(3, "question", "Ada Lovelace") == derived_seed(3, "question", "Ada Lovelace")


@pytest.mark.parametrize("other", [(4, "section", "Ada Lovelace"), (3, "prompt", "Ada Lovelace"),
                                   (3, "section", "Alan Turing"), (3, "section"), (3, "section", "Ada Lovelace", 0)])
def test_scopes_and_seeds_give_separate_streams(other):
    assert draws(seeded_rng(*other)) != draws(seeded_rng(3, "section", "Ada Lovelace"))
    assert derived_seed(*other) != derived_seed(3, "section", "Ada Lovelace")


def test_a_stream_does_not_depend_on_other_draws():
    first = seeded_rng(0, "pool", 1)
    seeded_rng(0, "pool", 2).shuffle(list(range(10)))
    assert draws(first) == draws(seeded_rng(0, "pool", 1))


def test_the_streams_are_the_ones_the_generators_drew_before():
    """``random.Random`` seeded with the scope joined by ':' (SHA-512 string seeding), and request seeds as the first
    four bytes of the scope's SHA-256: sets made before the helper existed are remade byte for byte."""
    assert scope_key(7, "generatedentities", "places", "business", "high") == "7:generatedentities:places:business:high"
    assert draws(seeded_rng(7, "chunk", "Ada")) == draws(random.Random("7:chunk:Ada"))
    assert draws(seeded_rng("contrast", "a text")) == draws(random.Random("contrast:a text"))
    digest = hashlib.sha256(b"7:question:Ada").digest()
    assert derived_seed(7, "question", "Ada") == int.from_bytes(digest[:4], "big")
    assert 0 <= derived_seed(0, "x") < 2**32


def _package_modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py") if p != HELPER)


def _own_randomness(path: Path) -> list[str]:
    """Calls that seed or draw randomness outside the helper: ``random.Random(...)``, ``Random(...)``, any function of
    the ``random`` module (its hidden global stream), ``from random import ...``, and a ``*seed*`` function hashing
    its own seed."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            found.append(f"line {node.lineno}: from random import")
        elif isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "random") or (
                    isinstance(func, ast.Name) and func.id == "Random"):
                found.append(f"line {node.lineno}: {ast.unparse(func)}(...)")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "seed" in node.name:
            if "hashlib" in ast.unparse(node):
                found.append(f"line {node.lineno}: {node.name} hashes a seed")
    return found


def test_no_module_seeds_randomness_on_its_own():
    own = {str(p.relative_to(ROOT)): hits for p in _package_modules() if (hits := _own_randomness(p))}
    assert not own, f"use hallubench.core.seeding instead: {own}"


def test_the_check_finds_an_ad_hoc_stream(tmp_path):
    module = tmp_path / "ad_hoc.py"
    module.write_text("import hashlib\nimport random\n\n\ndef pick(seed, items):\n"
                      "    return random.Random(f'{seed}:pick').choice(items)\n\n\n"
                      "def _seed_for(seed):\n    return hashlib.sha256(str(seed).encode()).digest()[0]\n")
    assert len(_own_randomness(module)) == 2
