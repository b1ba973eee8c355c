"""`hallubench report RESULTS --push-results REPO` / `--results-dir DIR`: results in the Hub's `.eval_results` format
(https://huggingface.co/docs/hub/eval-results), one entry per task and leaderboard metric of the benchmark's eval.yaml,
pinned to the release, with a full record beside each; pushed in one commit to the loopback Hub (tests/loopback_hub.py)
with the token from HF_TOKEN only, which no file or output carries."""

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from huggingface_hub import parse_eval_result_entries
from loopback_hub import TOKEN, FakeHub, hub_env
from support import run_cli

from hallu_metrics.benchmarks import precisewikiqa
from hallubench_generators.benchmark_yaml import eval_yaml

BIN = Path(sys.executable).parent
RELEASE, REVISION = "lab/pwqa-2026", "5503434ddd753f426f4b38109466949a1217c2bb"
MODEL_REPO = "me/llama-8b"
FINGERPRINT = "sha256:" + "3f" * 32
JUDGE = "openai:base_url=http://judge.internal:8000/v1,model=gpt-4o-mini,concurrency=8"
VERSION = "0.0.9"  # the hallubench a result records, not the one that publishes it


def score_result(path: Path, model: str = "Llama-3.1-8B", dataset: dict | None = None, settings: dict | None = None):
    """A `hallubench score` RESULT.json of precisewikiqa on the release (10 items: 5 correct, 3 hallucinated, 2
    abstained)."""
    outcomes = ["correct"] * 5 + ["hallucinated"] * 3 + ["abstained"] * 2
    result = precisewikiqa.BENCHMARK.summarize([{"outcome": o} for o in outcomes], [{"difficulty": "0"}] * 10)
    result.update(task="precisewikiqa", model=model, judges={"judge": JUDGE}, date="2026-11-27T10:00:00Z",
                  dataset=dataset or {"location": RELEASE, "revision": REVISION, "fingerprint": FINGERPRINT},
                  settings=settings or {"judge": JUDGE, "dataset": RELEASE, "dataset_revision": REVISION},
                  provenance={"software": {"hallubench": VERSION}})
    path.write_text(json.dumps(result))
    return path


def lm_eval_results(path: Path, model_args: str = "pretrained=/models/Llama-3.1-8B"):
    """An lm-eval results file of mixedentities judged by the rule judge on the release."""
    dataset = {"location": RELEASE, "from": "--metadata dataset", "revision": REVISION, "fingerprint": FINGERPRINT}
    path.write_text(json.dumps({
        "results": {"mixedentities": {
            "alias": "mixedentities", "false_acceptance_rate,judged": 0.25,
            "false_acceptance_rate_stderr,judged": 0.0625,
            "judge_unparseable_rate,judged": 0.0, "judge_unparseable_rate_stderr,judged": 0.0}},
        "configs": {"mixedentities": {"metadata": {
            "hallubench_judges": {"judge": "rule"}, "hallubench_dataset": dataset,
            "hallubench_settings": {"judge": "rule", "dataset": RELEASE, "dataset_revision": REVISION}}}},
        "config": {"model_args": model_args},
        "n-shot": {"mixedentities": 0},
        "n-samples": {"mixedentities": {"original": 48, "effective": 48}},
        "date": 1764237600.0,
    }))
    return path


def read_tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def declared_task_ids() -> set[str]:
    """The leaderboards the release's eval.yaml declares for the two tasks (as `generate --push-to-hub` writes it)."""
    card = {"pretty_name": "PreciseWikiQA", "hallubench": {
        "rows_fingerprint": FINGERPRINT,
        "results_fingerprint": {"precisewikiqa": FINGERPRINT, "mixedentities": FINGERPRINT}}}
    return {t["id"] for t in yaml.safe_load(eval_yaml(card, "A set.", RELEASE, REVISION, VERSION))["tasks"]}


def test_results_dir_writes_one_hub_entry_per_leaderboard_metric_and_a_record(tmp_path):
    sources = [score_result(tmp_path / "p.json"), lm_eval_results(tmp_path / "results_m.json")]
    run = run_cli("report", *sources, "--results-dir", tmp_path / "hub")
    assert run.returncode == 0, run.stderr
    files = read_tree(tmp_path / "hub")
    assert sorted(files) == [
        ".eval_results/mixedentities_rule.yaml", ".eval_results/precisewikiqa_openai-gpt-4o-mini.yaml",
        "hallubench_results/mixedentities_rule.json", "hallubench_results/precisewikiqa_openai-gpt-4o-mini.json"]
    entries = yaml.safe_load(files[".eval_results/precisewikiqa_openai-gpt-4o-mini.yaml"])
    for entry in entries:  # the Hub's required fields, and nothing the format does not define
        assert set(entry) <= {"dataset", "value", "verifyToken", "date", "source", "notes"}
        assert entry["dataset"]["id"] == RELEASE and entry["dataset"]["revision"] == REVISION
        assert isinstance(entry["dataset"]["task_id"], str) and isinstance(entry["value"], float)
        assert entry["date"] == "2026-11-27T10:00:00Z"
    by_task = {e["dataset"]["task_id"]: e for e in entries}
    assert set(by_task) == {"precisewikiqa.false_refusal_rate", "precisewikiqa.hallucination_rate",
                            "precisewikiqa.correct_rate"}  # the unreadable share is no leaderboard
    assert by_task["precisewikiqa.hallucination_rate"]["value"] == pytest.approx(3 / 8)
    assert by_task["precisewikiqa.correct_rate"]["value"] == 0.5
    notes = by_task["precisewikiqa.hallucination_rate"]["notes"]
    assert notes == "judge openai:gpt-4o-mini; stderr 0.183; n 8; set 3f3f3f3f3f3f; hallubench 0.0.9"
    mixed = yaml.safe_load(files[".eval_results/mixedentities_rule.yaml"])
    assert [(e["dataset"]["task_id"], e["value"]) for e in mixed] == [("mixedentities.false_acceptance_rate", 0.25)]
    assert "stderr 0.0625; set" in mixed[0]["notes"]  # a conditional rate: lm-eval recorded no item count
    parsed = parse_eval_result_entries(entries + mixed)  # huggingface_hub reads them back
    assert {e.task_id for e in parsed} <= declared_task_ids()
    assert {(e.dataset_id, e.dataset_revision) for e in parsed} == {(RELEASE, REVISION)}
    record = json.loads(files["hallubench_results/precisewikiqa_openai-gpt-4o-mini.json"])
    assert record["judges"] == {"judge": JUDGE} and record["settings"]["dataset_revision"] == REVISION
    assert record["set"]["fingerprint"] == FINGERPRINT and record["hallubench_version"] == VERSION
    installed = importlib.metadata.version("hallubench")
    assert record["published_with"] == {"hallubench": installed} and installed != VERSION
    assert mixed[0]["notes"].endswith(f"hallubench {installed}")  # lm-eval's results file records no version
    assert record["metrics"]["hallucination_rate"] == {
        "value": pytest.approx(3 / 8), "stderr": pytest.approx(0.1830, abs=1e-4), "counted": 8,
        "task_id": "precisewikiqa.hallucination_rate"}
    assert json.loads(files["hallubench_results/mixedentities_rule.json"])["settings"]["judge"] == "rule"


def push(hub: FakeHub, tmp: Path, *argv: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "hallubench"), "report", *map(str, argv)], capture_output=True, text=True,
                          env=hub_env(hub, tmp), timeout=300)


@pytest.fixture
def hub():
    hub = FakeHub()
    hub.commit(MODEL_REPO, {"README.md": b"---\nlicense: apache-2.0\n---\n# Llama 8B\n"})
    yield hub
    hub.close()


def test_the_push_is_one_commit_of_the_inspected_files_and_the_token_is_nowhere(hub, tmp_path):
    """--push-results with --results-dir: the commit holds exactly the files written locally (the source of each entry
    linking to its record on the Hub); the token (present in a recorded setting here) is sent as the Authorization
    header and written in no file nor output."""
    leaky = {"judge": f"openai:base_url=http://judge.internal:8000/v1,model=gpt-4o-mini,api_key={TOKEN}"}
    result = score_result(tmp_path / "p.json", settings=leaky)
    proc = push(hub, tmp_path, result, "--push-results", MODEL_REPO, "--results-dir", tmp_path / "hub")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert hub.unserved == [] and len(hub.repos[MODEL_REPO]) == 2 and len(hub.commit_bodies) == 1
    pushed = {p: c for p, c in hub.head(MODEL_REPO)[1].items() if p != "README.md"}
    assert pushed == read_tree(tmp_path / "hub")
    entry = yaml.safe_load(pushed[".eval_results/precisewikiqa_openai-gpt-4o-mini.yaml"])[0]
    assert entry["source"] == {
        "url": f"{hub.url}/{MODEL_REPO}/blob/main/hallubench_results/precisewikiqa_openai-gpt-4o-mini.json",
        "name": "hallubench record"}
    assert hub.authorizations == {f"Bearer {TOKEN}"}
    assert TOKEN not in proc.stdout + proc.stderr
    assert not any(TOKEN.encode() in content for content in pushed.values())
    assert "[redacted]" in pushed["hallubench_results/precisewikiqa_openai-gpt-4o-mini.json"].decode()


def test_a_refused_push_is_one_line_and_commits_nothing(tmp_path):
    hub = FakeHub(refuse_commits=True)
    hub.commit(MODEL_REPO, {"README.md": b"# Llama 8B\n"})
    try:
        proc = push(hub, tmp_path, score_result(tmp_path / "p.json"), "--push-results", MODEL_REPO)
    finally:
        hub.close()
    assert proc.returncode == 2
    error = proc.stderr[proc.stderr.index("hallubench: error:"):].rstrip("\n")
    assert "\n" not in error and f"push of results to {MODEL_REPO} failed" in error and "403" in error
    assert "nothing was committed" in error and TOKEN not in proc.stdout + proc.stderr
    assert len(hub.repos[MODEL_REPO]) == 1


def one_line_error(run) -> str:
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and run.stderr.startswith("hallubench: error: ")
    return run.stderr


def test_a_bad_repo_id_or_a_missing_token_is_one_line_before_anything(tmp_path, monkeypatch):
    result = score_result(tmp_path / "p.json")
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    bad = one_line_error(run_cli("report", result, "--push-results", "me/not a repo!", "--results-dir", tmp_path / "h"))
    assert "--push-results 'me/not a repo!': not a valid Hub repo id" in bad
    monkeypatch.delenv("HF_TOKEN")
    missing = one_line_error(run_cli("report", result, "--push-results", MODEL_REPO, "--results-dir", tmp_path / "h"))
    assert "needs a Hub token with write access in HF_TOKEN" in missing
    assert not (tmp_path / "h").exists()


def test_results_must_name_a_pinned_hub_release(tmp_path):
    """A result on a local folder or an unpinned run cannot say which set its value is on: refused with the way out,
    --benchmark REPO@REVISION, which then names the release of every entry."""
    local = score_result(tmp_path / "local.json", dataset={"location": str(tmp_path), "revision": "unpinned",
                                                           "fingerprint": FINGERPRINT})
    error = one_line_error(run_cli("report", local, "--results-dir", tmp_path / "h"))
    assert "not a Hub release; pass --benchmark REPO@REVISION" in error
    unpinned = score_result(tmp_path / "u.json", dataset={"location": RELEASE, "revision": "unpinned"})
    assert "has no pinned revision" in one_line_error(run_cli("report", unpinned, "--results-dir", tmp_path / "h"))
    named = run_cli("report", local, "--results-dir", tmp_path / "h", "--benchmark", f"{RELEASE}@{REVISION}")
    assert named.returncode == 0, named.stderr
    entries = yaml.safe_load((tmp_path / "h/.eval_results/precisewikiqa_openai-gpt-4o-mini.yaml").read_text())
    assert {(e["dataset"]["id"], e["dataset"]["revision"]) for e in entries} == {(RELEASE, REVISION)}


def test_a_model_repo_takes_one_model_a_leaderboard_dataset_several(tmp_path):
    sources = [score_result(tmp_path / "a.json", model="Llama-3.1-8B"), score_result(tmp_path / "b.json", model="Qwen")]
    error = one_line_error(run_cli("report", *sources, "--results-dir", tmp_path / "h"))
    assert "a model repo holds one model's results; got Llama-3.1-8B, Qwen" in error
    run = run_cli("report", *sources, "--results-dir", tmp_path / "h", "--repo-type", "dataset")
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "h/.eval_results").iterdir()) == [
        "llama-3.1-8b_precisewikiqa_openai-gpt-4o-mini.yaml", "qwen_precisewikiqa_openai-gpt-4o-mini.yaml"]


def test_results_dir_replaces_only_what_report_wrote(tmp_path):
    result = score_result(tmp_path / "p.json")
    assert run_cli("report", result, "--results-dir", tmp_path / "h").returncode == 0
    assert run_cli("report", result, "--results-dir", tmp_path / "h").returncode == 0  # its own files: replaced
    (tmp_path / "h/.eval_results/precisewikiqa_openai-gpt-4o-mini.yaml").write_text("- dataset: {id: x}\n")
    error = one_line_error(run_cli("report", result, "--results-dir", tmp_path / "h"))
    assert "was not written by hallubench report; refusing to replace it" in error
    assert (tmp_path / "h/.eval_results/precisewikiqa_openai-gpt-4o-mini.yaml").read_text() == "- dataset: {id: x}\n"


def test_unjudged_runs_are_left_out_with_a_line(tmp_path):
    """A predict-only lm-eval run has no value to rank: nothing is published, one line says why."""
    path = lm_eval_results(tmp_path / "results_p.json")
    data = json.loads(path.read_text())
    data["configs"]["mixedentities"]["metadata"]["hallubench_judging"] = "skipped (predict-only)"
    path.write_text(json.dumps(data))
    run = run_cli("report", path, "--results-dir", tmp_path / "h")
    assert run.returncode == 2 and run.stderr.splitlines() == [
        "[hallubench] not published: Llama-3.1-8B on mixedentities (predict-only, not judged)",
        "hallubench: error: no result to publish (only groups or predict-only runs)"]
    assert not (tmp_path / "h").exists()


def test_several_models_go_to_a_leaderboard_dataset_in_one_commit(hub, tmp_path):
    hub.commit("lab/pwqa-results", {"README.md": b"# results\n"})
    sources = [score_result(tmp_path / "a.json", model="Llama-3.1-8B"), score_result(tmp_path / "b.json", model="Qwen")]
    proc = push(hub, tmp_path, *sources, "--push-results", "lab/pwqa-results", "--repo-type", "dataset")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(hub.repos["lab/pwqa-results"]) == 2 and hub.unserved == []
    files = hub.head("lab/pwqa-results")[1]
    entry = yaml.safe_load(files[".eval_results/qwen_precisewikiqa_openai-gpt-4o-mini.yaml"])[0]
    assert entry["source"]["url"] == (f"{hub.url}/datasets/lab/pwqa-results/blob/main/hallubench_results/"
                                      "qwen_precisewikiqa_openai-gpt-4o-mini.json")
    assert json.loads(files["hallubench_results/qwen_precisewikiqa_openai-gpt-4o-mini.json"])["model"] == "Qwen"
