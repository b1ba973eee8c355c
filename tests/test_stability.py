"""Stability over regenerated sets (HalluLens appendix 9.1): `generate --trials`, `eval --trials` and the report's
stability section. Expected values are worked out by hand in the docstrings and comments."""

import csv
import io
import json
import math
import sys
from pathlib import Path

import datasets
import pytest
from support import run_cli, write_itis

from hallubench.cli import main
from hallubench.core.provenance import dataset_fingerprint
from hallubench.reporting.stability import mcnemar_exact, trial_difference

TASK = "mixedentities"
KEY = "false_acceptance_rate,judged"
DATE = 1717243200.0


def fingerprint(seed: int) -> str:
    return "sha256:" + f"{seed:02d}" * 32


def manifest(parent: Path, seeds: list[int]) -> Path:
    """A trials folder as `generate --trials` leaves it (the sets themselves are not read by the report)."""
    parent.mkdir(parents=True, exist_ok=True)
    sets = [{"seed": s, "folder": f"trial-{s}", "n": 40, "fingerprint": fingerprint(s)} for s in seeds]
    (parent / "trials.json").write_text(json.dumps({"written_by": "hallubench generate", "benchmark": TASK,
                                                    "seeds": seeds, "sets": sets}))
    return parent


def lm_eval_result(folder: Path, model: str, seed: int, value: float, location: str, stamp: str = "2024-06-01",
                   task: str = TASK, key: str = KEY) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"results_{stamp}.json"
    path.write_text(json.dumps({
        "results": {task: {key: value, "judge_unparseable_rate,judged": 0.0}},
        "configs": {task: {"metadata": {"hallubench_judges": {"judge": "rule"}, "hallubench_dataset": {
            "location": location, "from": "--metadata dataset", "revision": "unpinned",
            "fingerprint": fingerprint(seed)}}}},
        "config": {"model_args": f"pretrained=/models/{model}"},
        "n-shot": {task: 0},
        "n-samples": {task: {"original": 40, "effective": 40}},
        "date": DATE,
    }))
    return path


# model -> value per trial (fractions). Hand-worked, in points (ddof=1):
#   A: 10, 20, 30 -> mean 20, std 10;  B: 40, 40, 40 -> mean 40, std 0;
#   C: 50, 35, 80 -> mean 55, std sqrt((25 + 400 + 625) / 2) = sqrt(525) = 22.9129
#   average within-model std = (10 + 0 + 22.9129) / 3 = 10.9710
# Rankings: trials 0 and 2 order A < B < C, trial 1 A < C < B (one pair swapped among 3 models):
#   tau(0,1) = tau(1,2) = (2 concordant - 1 discordant) / 3 = 1/3, tau(0,2) = 1 -> mean 5/9 = 0.5556, min 1/3
VALUES = {"A": [0.10, 0.20, 0.30], "B": [0.40, 0.40, 0.40], "C": [0.50, 0.35, 0.80]}


def stability_rows(folder: Path) -> dict[tuple[str, str, str], str]:
    rows = csv.DictReader(io.StringIO((folder / "stability.csv").read_text()))
    return {(r["model"], r["trial_seed"], r["statistic"]): r["value"] for r in rows}


def test_report_aggregates_trials_as_worked_out_by_hand(tmp_path, capsys):
    parent = manifest(tmp_path / "sets", [0, 1, 2])
    paths = [lm_eval_result(tmp_path / "lm" / model / f"trial-{seed}", model, seed, value,
                            str(parent / f"trial-{seed}"))
             for model, values in VALUES.items() for seed, value in enumerate(values)]
    assert main(["report", *map(str, paths), "--out", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert "Stability over regenerated sets — mixedentities: 3 trials (seeds 0, 1, 2" in out
    assert "| A | 3 | 20.00 ± 10.00 |" in out
    assert "| B | 3 | 40.00 ± 0.00 |" in out
    assert "| C | 3 | 55.00 ± 22.91 |" in out
    assert "| false_acceptance_rate | 10.97 | 0.56 | 0.33 | 3 |" in out
    stats = stability_rows(tmp_path / "report")
    assert float(stats[("C", "", "std_ddof1")]) == pytest.approx(math.sqrt(525) / 100)  # fractions, as report.csv
    assert float(stats[("", "", "within_model_std_mean")]) == pytest.approx((10 + math.sqrt(525)) / 300)
    assert float(stats[("", "", "kendall_tau_mean")]) == pytest.approx(5 / 9)
    assert float(stats[("", "", "kendall_tau_min")]) == pytest.approx(1 / 3)
    assert float(stats[("C", "1", "value")]) == pytest.approx(0.35)
    plot = tmp_path / "report" / "stability_mixedentities_sets.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    report = (tmp_path / "report" / "report.md").read_text()  # the set's spread on each row's line (three error bars)
    assert "spread (C): false_acceptance_rate set ±22.91 (3 sets)" in report
    assert "spread (B): false_acceptance_rate set ±0.00 (3 sets)" in report
    table = list(csv.DictReader(io.StringIO((tmp_path / "report" / "report.csv").read_text())))
    c_rows = [r for r in table if r["model"] == "C" and r["metric"] == "false_acceptance_rate"]
    assert len(c_rows) == 3 and all(float(r["set_std"]) == pytest.approx(math.sqrt(525) / 100) for r in c_rows)
    command = ["report", *map(str, paths), "--out", str(tmp_path / "report")]
    assert main(command) == 0  # its own stability.csv and plot are replaced
    (tmp_path / "report" / "stability.csv").write_text("my,table\n")
    assert main(command) == 2
    assert "stability.csv exists and was not written by hallubench report" in capsys.readouterr().err
    assert (tmp_path / "report" / "stability.csv").read_text() == "my,table\n"


def test_results_on_other_sets_are_not_trials_and_a_stale_set_is_named(tmp_path, capsys):
    """A result whose set is not in the manifest beside it gets a note; without trials there is no section."""
    parent = manifest(tmp_path / "sets", [0, 1])
    good = lm_eval_result(tmp_path / "a0", "A", 0, 0.1, str(parent / "trial-0"))
    stale = lm_eval_result(tmp_path / "a1", "A", 7, 0.2, str(parent / "trial-1"))  # fingerprint of seed 7: changed
    assert main(["report", str(good), str(stale)]) == 0
    out = capsys.readouterr().out
    assert "not counted as a trial: A on mixedentities" in out and "| A | 1 |" in out
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "trials.json").write_text('{"my": "notes"}')  # not written by hallubench: no trials folder
    theirs = lm_eval_result(tmp_path / "m", "A", 0, 0.1, str(tmp_path / "mine" / "trial-0"))
    assert main(["report", str(theirs)]) == 0
    assert "not a trials manifest written by hallubench generate --trials" in capsys.readouterr().out
    alone = lm_eval_result(tmp_path / "x", "A", 0, 0.1, str(tmp_path / "elsewhere"))
    assert main(["report", str(alone)]) == 0
    assert "Stability" not in capsys.readouterr().out
    moved = lm_eval_result(tmp_path / "y", "A", 1, 0.3, "moved/away")  # found through --trials by fingerprint
    assert main(["report", str(alone), str(moved), "--trials", str(parent)]) == 0
    assert "| A | 2 | 20.00 ± 14.14 |" in capsys.readouterr().out  # 10 and 30: std sqrt(200) = 14.14


def test_a_task_that_reshapes_rows_is_matched_by_its_location_in_the_trials_folder(tmp_path, capsys):
    """LongWiki's results fingerprint its docs (rows with k added), never the rows the manifest lists: its results are
    recognised by the trial folder they name."""
    parent = manifest(tmp_path / "sets", [0, 1])
    paths = [lm_eval_result(tmp_path / f"lw{seed}", "A", 9, value, str(parent / f"trial-{seed}"), task="longwiki",
                            key="precision,judged") for seed, value in ((0, 0.5), (1, 0.7))]
    assert main(["report", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert "Stability over regenerated sets — longwiki: 2 trials" in out
    assert "| A | 2 |" in out and "not counted" not in out


def test_trial_difference_and_paired_t_test_by_hand():
    """A - B per trial: -30, -20, -10; mean -20, std 10, t = -20 / (10 / sqrt 3) = -3.4641 with 2 df; for 2 df the
    two-sided p is 1 - |t| / sqrt(2 + t^2) = 1 - 3.4641 / 3.7417 = 0.0742."""
    diffs, p = trial_difference({0: 10.0, 1: 20.0, 2: 30.0}, {0: 40.0, 1: 40.0, 2: 40.0})
    assert diffs == [-30.0, -20.0, -10.0]
    assert p == pytest.approx(1 - math.sqrt(12) / math.sqrt(14), abs=1e-9)
    assert math.isnan(trial_difference({0: 1.0}, {0: 2.0})[1])  # one trial: no test


def test_mcnemar_exact_on_a_hand_made_table():
    """6 items only A has, 1 only B has, 5 both, 3 neither: p = 2 * P(X <= 1 | n=7, 1/2) = 2 * 8 / 128 = 0.125."""
    pairs = [(1, 0)] * 6 + [(0, 1)] + [(1, 1)] * 5 + [(0, 0)] * 3
    assert mcnemar_exact(pairs) == (6, 1, pytest.approx(0.125))
    assert mcnemar_exact([(1, 1), (0, 0)]) == (0, 0, 1.0)


def test_report_compares_every_pair_over_trials_and_items(tmp_path, capsys):
    """Two models on two trials, per-item outcomes in the samples logs beside lm-eval's results (same date stamp):
    trial 0 items: A 1,1,1,0  B 0,0,1,0; trial 1: A 1,1,0,None  B 0,1,0,1 (None: not counted, left out).
    Discordant pairs: A only 3 (two in trial 0, one in trial 1), B only 0 -> p = 2 / 2^3 = 0.25.
    Rates: A 75.0 and 66.7, B 25.0 and 50.0 -> differences 50.0 and 16.7, mean 33.33, std 33.33 / sqrt 2 = 23.57."""
    parent = manifest(tmp_path / "sets", [0, 1])
    outcomes = {"A": [[1, 1, 1, 0], [1, 1, 0, None]], "B": [[0, 0, 1, 0], [0, 1, 0, 1]]}
    paths = []
    for model, trials in outcomes.items():
        for seed, items in enumerate(trials):
            folder = tmp_path / "lm" / model / f"trial-{seed}"
            defined = [v for v in items if v is not None]
            paths.append(lm_eval_result(folder, model, seed, sum(defined) / len(defined),
                                        str(parent / f"trial-{seed}"), stamp="2024-06-01T10-00-00.1"))
            lines = [{"doc_id": i, "doc_hash": f"h{seed}{i}", "false_acceptance_rate": v} for i, v in enumerate(items)]
            (folder / f"samples_{TASK}_2024-06-01T10-00-00.1.jsonl").write_text(
                "\n".join(json.dumps(line) for line in lines) + "\n")
    assert main(["report", *map(str, paths)]) == 0
    out = capsys.readouterr().out
    assert "| A − B | false_acceptance_rate | 50.0, 16.7 | 33.33 ± 23.57 |" in out
    assert "| 3 / 0 of 7 | 0.250 |" in out


# ---------------------------------------------------------------- generate --trials

# Small offline sources for mixedentities (an ITIS SQLite file and a Kaggle-style medicines CSV): what is tested here
# is the trials machinery, and scanning the shipped taxonomy and drug dictionary costs ~15 s per run.
ITIS = [(202423, 0, "Animalia"), (1, 202423, "Felidae"), (10, 1, "Panthera"), (100, 10, "Panthera leo"),
        (101, 10, "Panthera tigris"), (11, 1, "Neofelis"), (110, 11, "Neofelis nebulosa"), (12, 1, "Felis"),
        (120, 12, "Felis leo")]
MEDICINES = "id,name,substitute0\n0,Augmentin Duo Tablet,Azithral Tablet\n1,Allegra Tablet,Avil Injection\n"


def small_sources(folder: Path) -> list[str]:
    """``--itis-db`` and ``--medicine-csv`` options naming the small sources (written once per folder)."""
    medicines = folder / "medicines.csv"
    medicines.write_text(MEDICINES, encoding="utf-8")
    return ["--itis-db", str(write_itis(folder / "ITIS.sqlite", ITIS)), "--medicine-csv", str(medicines)]


def generate(out: Path, *extra: str) -> int:
    return main(["generate", "mixedentities", "--n-per-domain", "2", "--domains", "animal,medicine",
                 *small_sources(out.parent), "--out", str(out), *extra])


def test_generate_trials_writes_the_sets_separate_seeds_write_and_a_manifest(tmp_path):
    parent = tmp_path / "trials"
    assert generate(parent, "--seed", "5", "--trials", "2") == 0
    for seed in (5, 6):
        assert generate(tmp_path / f"single-{seed}", "--seed", str(seed)) == 0
        trial, single = parent / f"trial-{seed}", tmp_path / f"single-{seed}"
        assert (trial / "README.md").read_text() == (single / "README.md").read_text()
        assert (trial / "test" / "data-00000-of-00001.arrow").read_bytes() == \
            (single / "test" / "data-00000-of-00001.arrow").read_bytes()
    data = json.loads((parent / "trials.json").read_text())
    assert data["written_by"] == "hallubench generate" and data["benchmark"] == "mixedentities"
    assert data["seeds"] == [5, 6] and [s["folder"] for s in data["sets"]] == ["trial-5", "trial-6"]
    for entry in data["sets"]:
        rows = datasets.load_from_disk(str(parent / entry["folder"]))["test"]
        assert entry["fingerprint"] == dataset_fingerprint(rows)
    assert data["arguments"]["n_per_domain"] == 2 and data["arguments"]["trials"] == 2
    assert sorted(p.name for p in parent.iterdir()) == ["trial-5", "trial-6", "trials.json"]


def test_generate_trials_overwrite_push_and_crash(tmp_path, capsys, monkeypatch):
    parent = tmp_path / "trials"
    assert generate(parent, "--trials", "2") == 0
    assert generate(parent, "--trials", "2") == 2
    assert "already exists (pass --overwrite" in capsys.readouterr().err
    assert generate(parent, "--trials", "1", "--seed", "3", "--overwrite") == 0  # old trials 0 and 1 replaced
    assert sorted(p.name for p in parent.iterdir()) == ["trial-3", "trials.json"]
    assert generate(parent, "--trials", "1", "--push-to-hub", "me/set") == 2
    assert "--push-to-hub with --trials is refused" in capsys.readouterr().err
    (parent / "notes.txt").write_text("mine")
    assert generate(parent, "--trials", "1", "--overwrite") == 2
    assert "not a hallubench trials folder (notes.txt" in capsys.readouterr().err
    assert (parent / "notes.txt").read_text() == "mine"

    from hallubench_generators.nonexistent_refusal import mixedentities

    real, calls = mixedentities.run, []

    def crash_on_second(args, clients):
        calls.append(args.seed)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(args, clients)

    monkeypatch.setattr(mixedentities, "run", crash_on_second)
    crashed = tmp_path / "crashed"
    assert generate(crashed, "--trials", "3") == 130  # main's exit status for an interrupt
    assert not (crashed / "trials.json").exists()
    assert [p.name for p in crashed.iterdir() if not p.name.startswith(".")] == ["trial-0"]


# ---------------------------------------------------------------- eval --trials

def test_eval_runs_lm_eval_once_per_trial_with_its_set(tmp_path, capsys, monkeypatch):
    parent = manifest(tmp_path / "sets", [4, 5])
    calls = []
    monkeypatch.setattr("hallubench.cli.eval.run_lm_eval", lambda args: calls.append(args) or 0)
    monkeypatch.setattr("hallubench.cli.eval.check_trial_set", lambda *args: None)  # sets: test_small_refusals.py
    common = ["--model", "hf", "--tasks", TASK, "--metadata", '{"judge": "rule"}']
    assert main(["eval", "--trials", str(parent), *common, "--output_path", str(tmp_path / "out")]) == 0
    assert calls == [[*common, "--output_path", str(tmp_path / "out" / f"trial-{s}"), "--metadata",
                      json.dumps({"dataset": str(parent / f"trial-{s}")})] for s in (4, 5)]
    calls.clear()
    assert main(["eval", f"--trials={parent}", "--tasks", TASK, "--metadata", '{"dataset": "x"}',
                 "--output_path", "o"]) == 2
    assert "--metadata dataset: with --trials each trial's set is passed for you" in capsys.readouterr().err
    assert main(["eval", "--trials", str(parent), "--tasks", TASK]) == 2
    assert "--trials needs --output_path" in capsys.readouterr().err
    assert main(["eval", "--trials", str(tmp_path), "--tasks", TASK, "--output_path", "o"]) == 2
    assert "not a trials manifest written by hallubench generate --trials" in capsys.readouterr().err
    assert calls == []


def reply(messages: list[dict]) -> str:
    """The model under test (lm-eval's own API model against a loopback server): never heard of any name."""
    return "I'm sorry, I have never heard of it and cannot find any information about it."


def test_eval_over_a_trials_folder_with_lm_eval(tmp_path, monkeypatch, loopback_servers):
    """Real lm-eval runs (its local-chat-completions model on a loopback server) on two generated trials: each
    trial's results record that trial's set, and the report groups them into one stability section."""
    monkeypatch.setattr(sys, "argv", sys.argv[:])  # `hallubench eval` hands lm-eval its arguments in sys.argv
    monkeypatch.setattr("torch.utils.collect_env.get_pretty_env_info", lambda: "not collected in tests")
    parent = tmp_path / "sets"
    assert generate(parent, "--trials", "2") == 0
    server = loopback_servers.chat(reply)
    proc = run_cli("eval", "--trials", parent, "--model", "local-chat-completions", "--model_args",
                   f"base_url={server.base_url}/chat/completions,model=mut,max_retries=0", "--tasks", TASK,
                   "--apply_chat_template", "--log_samples", "--output_path", tmp_path / "out",
                   "--metadata", '{"judge": "rule"}')
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(server.requests) == 2 * 4  # 2 trials of 4 names, each asked once
    sets = {s["folder"]: s["fingerprint"] for s in json.loads((parent / "trials.json").read_text())["sets"]}
    results = []
    for folder, expected in sets.items():
        found = list((tmp_path / "out" / folder).rglob("results_*.json"))
        assert len(found) == 1
        output = json.loads(found[0].read_text())
        recorded = output["configs"][TASK]["metadata"]["hallubench_dataset"]
        assert recorded["fingerprint"] == expected and recorded["location"] == str(parent / folder)
        assert output["results"][TASK][KEY] == 0.0  # every made-up name refused
        results.append(str(found[0]))
    proc = run_cli("report", *results)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Stability over regenerated sets — mixedentities: 2 trials" in proc.stdout
