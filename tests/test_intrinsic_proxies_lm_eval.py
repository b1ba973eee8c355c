"""The HalluLens intrinsic and proxy tasks not covered by another real run go through lm_eval: anah_v2_ref and
popqa_hallu with the embedded rule judges, hhem_summarization with judge none (no HHEM weights offline: validity,
answer rate and length only), 2 items each. The model is lm-eval's API model on a loopback server, and (slow) the
local SmolLM2 with 8 new tokens."""

import json
from pathlib import Path

import pytest
from conftest import SHARED_DATA
from support import task_manager, write_jsonl

VECTARA = SHARED_DATA / "vectara_leaderboard" / "source_documents.jsonl"
TASKS = ["anah_v2_ref", "popqa_hallu", "hhem_summarization"]
ANAH = [{"question": "Who built the Eiffel Tower?", "language": "en",
         "document": "The Eiffel Tower was built by Gustave Eiffel's company for the 1889 World's Fair in Paris."},
        {"question": "Where is Lake Titicaca?", "language": "en",
         "document": "Lake Titicaca lies on the border of Peru and Bolivia in the Andes, at 3,812 metres."}]
POPQA = [{"question": "What is George Rankin's occupation?", "possible_answers": '["politician"]', "s_pop": 142,
          "prop": "occupation"},
         {"question": "In what city was Tim Burton born?", "possible_answers": '["Burbank"]', "s_pop": 52001,
          "prop": "place of birth"}]


def run_three_tasks(tmp_path: Path, documents: list[dict], model: str, model_args: str, **kwargs) -> dict:
    """lm_eval on the three tasks: every metric checked is defined and in range, and the samples carry judged
    records; lm-eval's output."""
    import lm_eval

    metadata = {"dataset_anah_v2_ref": str(write_jsonl(tmp_path / "anah.jsonl", ANAH)),
                "dataset_popqa_hallu": str(write_jsonl(tmp_path / "popqa.jsonl", POPQA)),
                "dataset_hhem_summarization": str(write_jsonl(tmp_path / "docs.jsonl", documents)),
                "judge": "rule", "judge_hhem_summarization": "none"}
    output = lm_eval.simple_evaluate(model=model, model_args=model_args, tasks=TASKS, limit=2,
                                     apply_chat_template=True, log_samples=True, task_manager=task_manager(metadata),
                                     **kwargs)
    results = output["results"]
    assert 0.0 <= results["popqa_hallu"]["false_refusal_rate,judged"] <= 1.0
    assert 0.0 <= results["anah_v2_ref"]["judge_unparseable_rate,judged"] <= 1.0
    assert 0.0 <= results["hhem_summarization"]["answer_rate,judged"] <= 1.0
    for task in TASKS:
        record = json.loads(output["samples"][task][0]["filtered_resps"][0])
        assert "outcome" in record
    return output


def answer(messages: list[dict]) -> str:
    """The model under test: PopQA's gold occupation and a wrong city, ANAH's answers from the documents, a summary
    for every summarization request."""
    replies = {"George Rankin": "He is a politician.", "Tim Burton": "He was born in Paris.",
               "Eiffel Tower": "Gustave Eiffel's company built it for the 1889 World's Fair.",
               "Titicaca": "It lies on the border of Peru and Bolivia."}
    text = messages[-1]["content"]
    return next((r for key, r in replies.items() if key in text), "The council voted to build a new bridge.")


def test_anah_popqa_and_hhem_summarization_run_with_an_api_model(tmp_path, monkeypatch, loopback_servers):
    """lm-eval's local-chat-completions model on a loopback server (``answer``): PopQA's hallucination rate 1/2 of
    the attempted answers, both summaries answered."""
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    documents = [{"id": i, "source": f"The council of town {i} met on Monday. It voted to build a new bridge over "
                                     "the river; work starts in May and ends next year."} for i in range(2)]
    server = loopback_servers.chat(answer)
    output = run_three_tasks(tmp_path, documents, "local-chat-completions",
                             f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0")
    results = output["results"]
    assert results["popqa_hallu"]["hallucination_rate,judged"] == 0.5
    assert results["popqa_hallu"]["false_refusal_rate,judged"] == 0.0
    assert results["hhem_summarization"]["answer_rate,judged"] == 1.0


@pytest.mark.slow
@pytest.mark.skipif(not VECTARA.is_file(), reason="../shared/data/vectara_leaderboard is not present")
def test_anah_popqa_and_hhem_summarization_run_through_lm_eval(tmp_path, monkeypatch):
    """The three tasks on the local SmolLM2 (hf backend, CPU), 8 new tokens, on two vectara news documents."""
    from hallubench.core.backends.hf_local import embedded_model_args

    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    documents = [json.loads(line) for line in VECTARA.read_text(encoding="utf-8").splitlines()[:2]]
    run_three_tasks(tmp_path, documents, "hf", ",".join(f"{k}={v}" for k, v in embedded_model_args().items()),
                    gen_kwargs="max_gen_toks=8", device="cpu")
