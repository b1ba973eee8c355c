"""The HalluLens intrinsic and proxy tasks not covered by another real run go through lm_eval with the local
SmolLM2 (slow): anah_v2_ref and popqa_hallu with the embedded rule judges, hhem_summarization with judge none
(no HHEM weights offline: validity, answer rate and length only), 2 items each, 8 new tokens."""

import json
import os

import pytest
from conftest import SHARED_DATA
from support import task_manager, write_jsonl

pytestmark = pytest.mark.slow
VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"


@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_anah_popqa_and_hhem_summarization_run_through_lm_eval(tmp_path):
    """Every metric of the three tasks is defined and in range, and the samples carry judged records."""
    import lm_eval

    from hallubench.backends.hf_local import embedded_model_args

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    anah = [{"question": "Who built the Eiffel Tower?", "language": "en",
             "document": "The Eiffel Tower was built by Gustave Eiffel's company for the 1889 World's Fair in Paris."},
            {"question": "Where is Lake Titicaca?", "language": "en",
             "document": "Lake Titicaca lies on the border of Peru and Bolivia in the Andes, at 3,812 metres."}]
    popqa = [{"question": "What is George Rankin's occupation?", "possible_answers": '["politician"]',
              "s_pop": 142, "prop": "occupation"},
             {"question": "In what city was Tim Burton born?", "possible_answers": '["Burbank"]',
              "s_pop": 52001, "prop": "place of birth"}]
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()[:2]]
    metadata = {"dataset_anah_v2_ref": write_jsonl(tmp_path / "anah.jsonl", anah),
                "dataset_popqa_hallu": write_jsonl(tmp_path / "popqa.jsonl", popqa),
                "dataset_hhem_summarization": write_jsonl(tmp_path / "docs.jsonl", documents),
                "judge": "rule", "judge_hhem_summarization": "none"}
    output = lm_eval.simple_evaluate(
        model="hf", model_args=",".join(f"{k}={v}" for k, v in embedded_model_args().items()),
        tasks=["anah_v2_ref", "popqa_hallu", "hhem_summarization"], limit=2, gen_kwargs="max_gen_toks=8",
        apply_chat_template=True, log_samples=True, device="cpu",
        task_manager=task_manager(metadata),
    )
    results = output["results"]
    assert 0.0 <= results["popqa_hallu"]["false_refusal_rate,judged"] <= 1.0
    assert 0.0 <= results["anah_v2_ref"]["judge_unparseable_rate,judged"] <= 1.0
    assert 0.0 <= results["hhem_summarization"]["answer_rate,judged"] <= 1.0
    for task in ("anah_v2_ref", "popqa_hallu", "hhem_summarization"):
        record = json.loads(output["samples"][task][0]["filtered_resps"][0])
        assert "outcome" in record
