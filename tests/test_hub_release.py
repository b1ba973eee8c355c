"""`generate ... --push-to-hub`: a pinned release. Against a loopback stand-in of the Hub HTTP API
(tests/loopback_hub.py), the push keeps the `configs` / `dataset_info` metadata datasets wrote, adds the card over it
and the Hub's benchmark `eval.yaml` beside it, prints and records the last commit, reads the token only from HF_TOKEN
and writes it nowhere."""

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
import yaml
from huggingface_hub.repocard import metadata_load
from loopback_hub import TOKEN, FakeHub, hub_env
from support import write_itis

from hallubench_generators.common.publishing import foreign_content

BIN = Path(sys.executable).parent
REPO = "lab/mixed-release"


# A small ITIS taxonomy (tsn, parent, name) for the animal names: the shipped offline one takes ~10 s to scan per run.
ITIS = [(202423, 0, "Animalia"), (1, 202423, "Felidae"), (10, 1, "Panthera"), (100, 10, "Panthera leo"),
        (101, 10, "Panthera tigris"), (102, 10, "Panthera onca"), (11, 1, "Neofelis"), (110, 11, "Neofelis nebulosa"),
        (12, 1, "Felis"), (120, 12, "Felis catus"), (121, 12, "Felis chaus")]


def push(hub: FakeHub, tmp: Path, out: Path, seed: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "hallubench"), "generate", "mixedentities", "--n-per-domain", "2", "--domains", "animal",
         "--itis-db", str(write_itis(tmp / "ITIS.sqlite", ITIS)), "--seed", str(seed), "--out", str(out),
         "--push-to-hub", REPO],
        capture_output=True, text=True, env=hub_env(hub, tmp), timeout=600,
    )


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    """One `generate mixedentities ... --push-to-hub` run (a CLI process with HF_ENDPOINT on the loopback hub)."""
    tmp = tmp_path_factory.mktemp("release")
    hub = FakeHub()
    out = tmp / "set"
    yield hub, out, push(hub, tmp, out, seed=0)
    hub.close()


def test_the_push_succeeds_and_commits_data_then_card(release):
    hub, out, proc = release
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert hub.unserved == []
    commits = hub.repos[REPO]
    assert len(commits) == 3  # the repo's creation, the data (datasets), the card and eval.yaml (hallubench)
    assert [line["value"]["path"] for line in hub.commit_bodies[-1][1:]] == ["README.md", "eval.yaml"]
    # the card commit names the data commit as its parent, so nothing can slip in between
    assert hub.commit_bodies[-1][0]["value"]["parentCommit"] == commits[1][0]
    assert any(p.startswith("data/test-") and p.endswith(".parquet") for p in commits[-1][1])


def test_the_hub_card_keeps_the_push_metadata_and_adds_the_card(release):
    hub, out, _ = release
    pushed_card = hub.head(REPO)[1]["README.md"].decode()
    data_card = hub.repos[REPO][1][1]["README.md"].decode()  # what datasets' push_to_hub wrote
    meta = yaml.safe_load(pushed_card.split("---\n")[1])
    data_meta = yaml.safe_load(data_card.split("---\n")[1])
    assert meta["configs"] == data_meta["configs"] == [
        {"config_name": "default", "data_files": [{"split": "test", "path": "data/test-*"}]}]
    assert meta["dataset_info"] == data_meta["dataset_info"]
    assert meta["dataset_info"]["splits"][0]["num_examples"] == 2  # --n-per-domain 2, one domain
    local = metadata_load(out / "README.md")
    for key in ("license", "pretty_name", "tags", "task_categories", "language"):
        assert meta[key] == local[key]
    assert "hallubench" in meta["tags"]
    body = pushed_card.split("---\n", 2)[2]
    local_body = (out / "README.md").read_text().split("---\n", 2)[2]
    assert "## Reproducibility" in body and local_body.startswith(body.rstrip())
    assert "## Release" not in body  # a commit cannot name itself


def test_the_revision_is_printed_pinned_and_recorded(release):
    hub, out, proc = release
    final = hub.head(REPO)[0]
    assert f"at revision {final}" in proc.stderr
    assert f"""--metadata '{{"dataset": "{REPO}", "dataset_revision": "{final}"}}'""" in proc.stderr
    card = (out / "README.md").read_text()
    release_part = card.split("## Release", 1)[1]
    assert f"- revision: `{final}`" in release_part and REPO in release_part
    assert f'"dataset_revision": "{final}"' in release_part
    assert foreign_content(out) is None  # still a hallubench set that --overwrite may replace
    assert len(datasets.load_from_disk(str(out))["test"]) == 2
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "dataset_dict.json", "test"]


def test_the_token_is_sent_from_the_environment_and_written_nowhere(release):
    hub, out, proc = release
    assert hub.authorizations == {f"Bearer {TOKEN}"}
    assert TOKEN not in proc.stdout + proc.stderr
    written = [p.read_bytes() for p in out.rglob("*") if p.is_file()]
    written += [content for _, files in hub.repos[REPO] for content in files.values()]
    assert not any(TOKEN.encode() in content for content in written)


def test_a_later_release_leaves_the_pinned_one_loadable(release, tmp_path):
    """A second push to the same repo (another seed) is a new revision; the task loader (what lm_eval runs) given
    the first revision as ``dataset_revision`` loads the first set's rows, given the second the second's."""
    hub, first_out, first = release
    assert first.returncode == 0, first.stderr[-3000:]
    first_revision = hub.head(REPO)[0]
    second_out = tmp_path / "second"
    second = push(hub, tmp_path, second_out, seed=1)
    assert second.returncode == 0, second.stderr[-3000:]
    second_revision = hub.head(REPO)[0]
    assert second_revision != first_revision and f"at revision {second_revision}" in second.stderr
    meta = yaml.safe_load(hub.head(REPO)[1]["README.md"].decode().split("---\n")[1])
    assert meta["tags"] == ["hallucination", "hallubench"] and len(meta["configs"]) == 1  # merged, not doubled
    # the first revision as a per-task key, the second as the plain key (both forms of a data setting)
    loader = ("import json, sys; from hallubench_tasks.dataset_loading import load_rows; "
              "print(json.dumps([list(load_rows('mixedentities', {'dataset': sys.argv[1], key: rev})['name']) "
              "for key, rev in zip(('dataset_revision_mixedentities', 'dataset_revision'), sys.argv[2:])]))")
    loaded = subprocess.run([sys.executable, "-c", loader, REPO, first_revision, second_revision],
                            capture_output=True, text=True, env=hub_env(hub, tmp_path), timeout=300)
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert json.loads(loaded.stdout.splitlines()[-1]) == [names(first_out), names(second_out)]
    assert names(first_out) != names(second_out)


def names(out: Path) -> list[str]:
    return list(datasets.load_from_disk(str(out))["test"]["name"])


def test_a_refused_push_is_one_line_and_leaves_the_local_set_unreleased(tmp_path):
    """A token without write access: exit 2 with one line naming the repo, no token in it, the local set intact
    and without a Release section."""
    hub = FakeHub(refuse_commits=True)
    try:
        proc = push(hub, tmp_path, tmp_path / "set", seed=0)
    finally:
        hub.close()
    assert proc.returncode == 2
    error = proc.stderr[proc.stderr.index("hallubench: error:"):].rstrip("\n")
    assert "\n" not in error and f"push to {REPO} failed" in error and "403 Forbidden" in error
    assert "the rights to create a commit" in error  # the Hub's own reason survives
    assert TOKEN not in proc.stdout + proc.stderr
    assert foreign_content(tmp_path / "set") is None
    assert "## Release" not in (tmp_path / "set" / "README.md").read_text()


def test_the_release_declares_itself_a_hub_benchmark_pinned_to_its_data(release):
    """eval.yaml (https://huggingface.co/docs/hub/eval-results): the Hub's required fields, one leaderboard per task and
    headline metric, the data commit as the pinned revision (the final commit holds the same rows), the card's
    fingerprints and how to run each task in lm-eval and in Inspect."""
    from hallubench_generators.benchmark_yaml import leaderboard_metrics

    hub, out, _ = release
    (data_oid, data_files), (final_oid, final_files) = hub.repos[REPO][1], hub.repos[REPO][2]
    declared = yaml.safe_load(final_files["eval.yaml"])
    card = metadata_load(out / "README.md")
    assert declared["name"] == card["pretty_name"] and declared["description"].strip()
    assert declared["evaluation_framework"] == "inspect-ai"
    ids = [f"mixedentities.{m.name}" for m in leaderboard_metrics("mixedentities")]
    assert [t["id"] for t in declared["tasks"]] == ids == ["mixedentities.false_acceptance_rate"]
    columns = set(datasets.load_from_disk(str(out))["test"].column_names)
    for task in declared["tasks"]:  # inspect-ai benchmarks must also give these
        assert {"field_spec", "solvers", "scorers"} <= set(task) and task["field_spec"]["input"] in columns
    extra = declared["hallubench"]
    assert extra["revision"] == data_oid != final_oid and extra["dataset"] == REPO
    assert {p: c for p, c in data_files.items() if p.startswith("data/")} == {
        p: c for p, c in final_files.items() if p.startswith("data/")}
    assert extra["rows_fingerprint"] == card["hallubench"]["rows_fingerprint"]
    task = extra["tasks"]["mixedentities"]
    assert task["fingerprint"] == card["hallubench"]["results_fingerprint"]["mixedentities"]
    assert task["run"]["inspect"].startswith(
        f"inspect eval hallubench/mixedentities -T dataset={REPO} -T dataset_revision={data_oid}")
    assert f'"dataset_revision": "{data_oid}"' in task["run"]["lm_eval"]
    assert extra["version"] == importlib.metadata.version("hallubench")


def test_eval_yaml_tasks_are_entries_inspects_hub_loader_reads(release):
    """Inspect's `hf/` loader refuses unknown task keys: each entry passes its model but for the scorer, which is
    hallubench's judge chain (run through `inspect eval hallubench/<task>`, not one Inspect builds from eval.yaml)."""
    hf = pytest.importorskip("inspect_ai._eval.task.hf")
    hub, _, _ = release
    for task in yaml.safe_load(hub.head(REPO)[1]["eval.yaml"])["tasks"]:
        assert task["scorers"][0]["name"] == "mixedentities_judge"
        hf.HFTask.model_validate({**task, "scorers": [{"name": "match"}]})
