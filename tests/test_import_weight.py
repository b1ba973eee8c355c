"""Import weight of the CLI, a property of the process (so each check runs in a fresh interpreter): `hallubench --help`
loads no heavy library, and `hallubench score` none that scoring does not use: no ML stack, lm-eval, plotting or
jsonschema, no ``datasets`` (the benchmarks' columns are declared without it and a set of scalar columns is
fingerprinted without building a Dataset), no ``inspect_ai`` (imported only when an Inspect log is scored), and with
the rule judge no HTTP client either."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import LoopbackChatServer

NEVER = ("torch", "transformers", "sentence_transformers", "spacy", "sklearn", "scipy", "matplotlib", "lm_eval",
         "jsonschema", "datasets", "pandas", "pyarrow", "inspect_ai")
NOT_FOR_RULE_SCORE = (*NEVER, "httpx", "tenacity")
NOT_FOR_HELP = NOT_FOR_RULE_SCORE


def modules_after(argv: list[str], tmp_path: Path) -> set[str]:
    """Top-level packages imported by ``hallubench ARGV`` run in a fresh interpreter (its call cache in tmp_path)."""
    listing = tmp_path / "modules.json"
    code = ("import json, sys\nfrom hallubench.cli import main\nmain(sys.argv[2:])\n"
            "json.dump(sorted({name.split('.')[0] for name in sys.modules}), open(sys.argv[1], 'w'))")
    subprocess.run([sys.executable, "-c", code, str(listing), *argv], check=True, capture_output=True, timeout=120,
                   env={**os.environ, "HALLUBENCH_CACHE": str(tmp_path / "calls.sqlite")})
    return set(json.loads(listing.read_text()))


def test_help_imports_nothing_heavy(tmp_path):
    assert not modules_after(["--help"], tmp_path) & set(NOT_FOR_HELP)


@pytest.mark.parametrize("judge", ["rule", "openai"])
def test_score_imports_only_what_it_uses(tmp_path, judge):
    samples = tmp_path / "samples_precisewikiqa_2026-11-27T00-00-00.000001.jsonl"
    doc = {"id": "q0", "question": "What is the capital of France?", "answer": "Paris", "title": "France",
           "reference": "r", "difficulty": 0}
    samples.write_text(json.dumps({"doc_id": 0, "doc": doc, "resps": [["Paris."]]}) + "\n", encoding="utf-8")
    with LoopbackChatServer(lambda messages: '{"is_abstaining": false}' if "is_abstaining" in messages[-1]["content"]
                            else "CORRECT") as server:
        spec = "rule" if judge == "rule" else f"openai:base_url={server.base_url},model=stub"
        imported = modules_after(["score", "--task", "precisewikiqa", "--judge", spec, "--samples", str(samples),
                                  "--out", str(tmp_path / "RESULT.json")], tmp_path)
        assert len(server.requests) == (0 if judge == "rule" else 2)
    assert json.loads((tmp_path / "RESULT.json").read_text())["n"] == 1
    assert "hallu_metrics" in imported  # the check below would pass vacuously if score had not run
    assert not imported & set(NOT_FOR_RULE_SCORE if judge == "rule" else NEVER)


def test_spec_values_are_typed_as_lm_eval_types_them():
    """specs.typed_value restates lm_eval.utils.handle_arg_string (so that parsing a spec need not import lm-eval's
    utilities): the same value and type for every shape of value."""
    from lm_eval.utils import handle_arg_string

    from hallubench.core.specs import typed_value

    values = ["8", "-1", "+3", "007", "+-5", "²", "١٢", "0.5", "1e3", "-2.5E-2", "inf", "nan", "1_000", "true", "False",
              "NONE", "none ", " 42 ", "'8'", '"true"', "'", "''", "'mixed\"", "http://h:8000/v1", "model-7b", "", "+",
              "-", "a=b"]
    for value in values:
        ours, theirs = typed_value(value), handle_arg_string(value)
        assert (type(ours), repr(ours)) == (type(theirs), repr(theirs)), value
