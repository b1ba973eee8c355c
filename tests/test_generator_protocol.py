"""The generator protocol (generators/protocol.py): every ``hallubench generate NAME`` module declares
``CLIENT_OPTION`` itself (None for a generator without model calls); the CLI gives no default and refuses a module
without it."""

import types
from argparse import Namespace

import pytest

from hallubench.errors import HallubenchError
from hallubench_generators.cli import GENERATORS, client_option, generator, open_clients


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

    from hallubench_generators.publishing import check_rows

    features = datasets.Features({"id": datasets.Value("string"), "question": datasets.Value("string")})
    check_rows([{"id": "a", "question": "q"}], features)
    with pytest.raises(HallubenchError, match=r"missing: \['question'\], undeclared: \['questoin'\]"):
        check_rows([{"id": "a", "question": "q"}, {"id": "b", "questoin": "q"}], features)
