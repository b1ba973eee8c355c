"""The generator protocol (generators/common/protocol.py): every ``hallubench generate NAME`` module declares
``CLIENT_OPTION`` itself (None for a generator without model calls); the CLI gives no default and refuses a module
without it."""

import ast
import importlib
import inspect
import re
import sys
import types
from argparse import Namespace
from pathlib import Path

import pytest

from hallubench.core.errors import HallubenchError
from hallubench_generators.cli import GENERATORS, client_option, declared_help, generator, open_clients

TESTS = Path(__file__).parent


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_declares_its_client_option(name):
    module = generator(name)
    assert "CLIENT_OPTION" in vars(module), f"hallubench_generators.{name} does not declare CLIENT_OPTION"
    option = client_option(module)
    assert option is None or isinstance(option, (str, tuple))


def test_a_module_without_client_option_is_refused(tmp_path):
    module = types.ModuleType("hallubench_generators.undeclared")
    with pytest.raises(HallubenchError, match="hallubench_generators.undeclared does not declare CLIENT_OPTION"):
        open_clients(module, Namespace(generator="openai:model=m", cache=tmp_path / "calls.sqlite"))


def test_a_client_option_of_the_wrong_type_is_refused():
    module = types.ModuleType("hallubench_generators.wrong")
    module.CLIENT_OPTION = ["generator"]
    with pytest.raises(HallubenchError, match="CLIENT_OPTION must be an option name"):
        client_option(module)


def test_a_rule_only_generator_gets_no_clients(tmp_path):
    module = types.ModuleType("hallubench_generators.rules_only")
    module.CLIENT_OPTION = None
    assert open_clients(module, Namespace(cache=tmp_path / "calls.sqlite")) is None
    assert generator("mixedentities").CLIENT_OPTION is None


def test_rows_must_have_exactly_the_declared_columns(tmp_path):
    """A generator row missing a declared column, or carrying an undeclared one, is refused before anything is
    written (datasets would fill the first with null and the contract would not notice)."""
    import datasets

    from hallubench_generators.common.publishing import check_rows

    features = datasets.Features({"id": datasets.Value("string"), "question": datasets.Value("string")})
    check_rows([{"id": "a", "question": "q"}], features)
    with pytest.raises(HallubenchError, match=r"missing: \['question'\], undeclared: \['questoin'\]"):
        check_rows([{"id": "a", "question": "q"}, {"id": "b", "questoin": "q"}], features)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_declares_its_help_line(name):
    """``generate --help`` shows the line the module declares (read from its source, so without importing it)."""
    module = generator(name)
    assert isinstance(vars(module).get("HELP"), str) and module.HELP, f"{module.__name__} declares no HELP line"
    assert declared_help(GENERATORS[name]) == module.HELP


def request_builders(prompts: types.ModuleType) -> list[types.FunctionType]:
    """The public functions of a prompts module that build a model request (they return a ``ChatRequest``)."""
    return [function for name, function in vars(prompts).items()
            if inspect.isfunction(function) and function.__module__ == prompts.__name__ and not name.startswith("_")
            and inspect.signature(function).return_annotation in ("ChatRequest",
                                                                   "hallubench.core.backends.ChatRequest")]


def called_code(function) -> set[types.CodeType]:
    """The code objects of every Python function that ``function()`` calls, directly or not."""
    called: set[types.CodeType] = set()
    sys.setprofile(lambda frame, event, arg: called.add(frame.f_code) if event == "call" else None)
    try:
        function()
    finally:
        sys.setprofile(None)
    return called


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_model_request_is_built_in_prompts_and_hashed_on_the_card(name):
    """docs/design.md: a generator that calls models builds every request it sends in its package's ``prompts.py``
    (no ``ChatRequest`` made elsewhere in the package), and ``sent_prompts()`` (the card's prompt hash) renders every
    request builder there: a request it leaves out could change without changing the card."""
    module = generator(name)
    if client_option(module) is None:  # no model calls
        return
    package = GENERATORS[name].split(".")[0]
    folder = Path(module.__file__).parent  # generators/<package>/, its __init__.py or a module beside it
    assert (folder / "prompts.py").is_file(), f"{name}: no generators/{package}/prompts.py holding its requests"
    for path in sorted(folder.glob("*.py")):
        if path.name == "prompts.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        made = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call) and "ChatRequest" in {
            getattr(node.func, "id", None), getattr(node.func, "attr", None),
            getattr(getattr(node.func, "value", None), "id", None)}]  # ChatRequest(...), ChatRequest.from_messages(...)
        assert not made, f"{name}: a request is built outside prompts.py, in {path.name} line {made[0]}"
    prompts = importlib.import_module(f"hallubench_generators.{package}.prompts")
    builders = request_builders(prompts)
    assert builders, f"{name}: generators/{package}/prompts.py has no request builder (a function giving a ChatRequest)"
    called = called_code(module.sent_prompts)
    left_out = [builder.__name__ for builder in builders if builder.__code__ not in called]
    assert not left_out, f"{name}: sent_prompts() does not render {left_out}, so the card's prompt hash misses them"


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_every_generator_has_a_test_that_runs_it(name):
    """A generator test writes a small set offline (docs/testing.md): some test module other than the protocol's own
    runs ``generate NAME`` or imports the generator's module."""
    module = f"hallubench_generators.{GENERATORS[name]}"
    parent, _, last = module.rpartition(".")
    module_, parent_, last_ = (re.escape(part) for part in (module, parent, last))
    runs_it = re.compile(rf'"generate", "{name}"|import {module_}\b|from {module_} import'
                         rf'|from {parent_} import .*\b{last_}\b')
    runs = [path.name for path in TESTS.glob("test_*.py")
            if path.name != Path(__file__).name and runs_it.search(path.read_text(encoding="utf-8"))]
    assert runs, f"no test runs generator {name} (tests/test_{name}_generator.py: `generate {name}` on a small set)"
