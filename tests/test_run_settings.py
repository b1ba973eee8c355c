"""One run's settings, resolved once and recorded in each judged sample: `hallubench score` on lm-eval's samples
log, with no flags, reuses the run's verdicts and settings and reproduces lm-eval's numbers for every benchmark; a
flag overrides a recorded setting (and says so); an environment variable at score time changes nothing recorded."""

import json

import pytest
from test_metric_paths import CASES, judged_records, lm_eval_values, same

from hallu_metrics.benchmarks.longwiki import evidence as longwiki_evidence
from hallu_metrics.registry import BENCHMARKS
from hallu_metrics.settings import resolve_settings
from hallubench.cli import build_parser, main
from hallubench.cli.options import settings_flags
from hallubench.core.errors import HallubenchError
from hallubench.reporting.scoring import ScoreOptions, score


def write_samples(path, task, case, records, settings):
    """A samples log as lm-eval writes it for a hallubench task: the judged record, with the run's settings, in
    ``filtered_resps``."""
    lines = [json.dumps({"doc_id": i, "doc": doc, "resps": [[response]],
                         "filtered_resps": [json.dumps({**record, "settings": settings.record()})]})
             for i, (doc, response, record) in enumerate(zip(case.docs, case.responses, records))]
    path.write_text("\n".join(lines) + "\n")
    return path


def recorded_run(name, case):
    return resolve_settings(BENCHMARKS[name], name, {**case.settings, "judge": case.judge_spec})


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_score_without_flags_reproduces_lm_eval_from_the_samples_log(name, tmp_path):
    case = CASES[name](tmp_path)
    case.faults = {key: "unreadable" for key in case.faults}  # a failed verdict is judged again by score (resume)
    records = judged_records(name, case)
    samples = write_samples(tmp_path / f"samples_{name}_2026-01-01T00-00-00.jsonl", name, case, records,
                            recorded_run(name, case))
    result, _ = score(name, samples)
    lm_eval = lm_eval_values(name, records, case.docs)
    for metric in BENCHMARKS[name].metric_names:
        assert same(result[metric], lm_eval[metric]), (metric, result[metric], lm_eval[metric])
    if BENCHMARKS[name].judge_roles:  # every verdict reused: no judge was asked
        assert result["verdicts"] == {"reused": len(case.docs), "judged": 0}
        assert result["settings"] == recorded_run(name, case).record()


def test_rescoring_keeps_the_runs_retrieval_and_k_whatever_the_environment(tmp_path, monkeypatch):
    """The run used BM25 retrieval and K=5; at score time the environment says otherwise: the recorded settings win,
    the result records them, and --rejudge retrieves with BM25."""
    case = CASES["longwiki"](tmp_path)
    case.faults = {}
    run = resolve_settings(BENCHMARKS["longwiki"], "longwiki", {**case.settings, "longwiki_k": "5"})
    samples = write_samples(tmp_path / "samples_longwiki_2026-01-01T00-00-00.jsonl", "longwiki", case,
                            judged_records("longwiki", case), run)
    monkeypatch.setenv("HALLUBENCH_RETRIEVAL", "embedding")
    monkeypatch.setenv("HALLUBENCH_LONGWIKI_K", "64")
    used = []
    original = longwiki_evidence.evidence_settings
    monkeypatch.setattr(longwiki_evidence, "evidence_settings", lambda s: used.append(original(s)) or used[-1])
    result, records = score("longwiki", samples, ScoreOptions(rejudge=True))
    assert result["settings"]["retrieval"] == "bm25" and result["settings"]["longwiki_k"] == "5"
    assert used and {method for _, _, method in used} == {"bm25"}
    assert {r["k"] for r in records} == {5}
    assert result["verdicts"] == {"reused": 0, "judged": len(case.docs)}


def test_a_flag_overrides_a_recorded_setting_and_says_so(tmp_path, capsys):
    case = CASES["longwiki"](tmp_path)
    case.faults = {}
    samples = write_samples(tmp_path / "samples_longwiki_2026-01-01T00-00-00.jsonl", "longwiki", case,
                            judged_records("longwiki", case), recorded_run("longwiki", case))
    code = main(["score", "--task", "longwiki", "--samples", str(samples), "--set", "retrieval=embedding",
                 "--out", str(tmp_path / "r.json")])
    assert code == 0
    assert "overridden by flags: retrieval='embedding' (run: 'bm25')" in capsys.readouterr().err
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["settings"]["retrieval"] == "embedding"
    assert result["verdicts"] == {"reused": 0, "judged": len(case.docs)}  # verdicts of other settings are not reused


def test_only_items_without_a_verdict_are_judged_and_another_judge_judges_all(tmp_path):
    """Predict-only or failed items are judged; the others reuse their verdicts; another judge spec than the run's
    judges every item."""
    case = CASES["precisewikiqa"](tmp_path)
    case.faults = {}
    records = judged_records("precisewikiqa", case)
    records[0] = {"response": case.responses[0], "outcome": "unjudged", "judge": "none",
                  "unjudged_reason": "--predict_only"}
    samples = write_samples(tmp_path / "samples_precisewikiqa_2026-01-01T00-00-00.jsonl", "precisewikiqa", case,
                            records, recorded_run("precisewikiqa", case))
    result, rescored = score("precisewikiqa", samples)
    assert result["verdicts"] == {"reused": len(case.docs) - 1, "judged": 1}
    assert rescored[0]["outcome"] != "unjudged"
    other = score("precisewikiqa", samples, ScoreOptions({"judge": "openai:base_url=http://127.0.0.1:9/v1,model=m,"
                                                                   "max_retries=0,timeout=1"}))[0]
    assert other["verdicts"] == {"reused": 0, "judged": len(case.docs)}


def test_set_names_only_the_tasks_own_settings(tmp_path):
    with pytest.raises(HallubenchError, match="not a setting of precisewikiqa"):
        settings_flags(build_parser().parse_args(["score", "--task", "precisewikiqa", "--samples", "s",
                                                  "--out", "o.json", "--set", "retrieval=bm25"]))
