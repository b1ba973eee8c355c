"""Tables and plots of `hallubench score` results for both kinds of breakdown."""

from hallu_metrics import nonexistent_refusal, precisewikiqa
from hallubench import report


def test_plots_difficulty_bins_and_categories_including_empty_rates(tmp_path):
    """A binned result (with a bin where hallucination_rate is None) and a per-domain/tier result
    both render to PNG files; the table lists every row with its n."""
    binned = precisewikiqa.summarize(["abstained", "correct", "hallucinated"], [0, 1, 1])
    binned.update(task="precisewikiqa", judge="rule")
    assert binned["per_bin"]["0"]["hallucination_rate"] is None
    categorical = nonexistent_refusal.summarize(
        [{"outcome": "believed"}, {"outcome": "not_believed"}], [{"domain": "business", "place_tier": "high"}, {"domain": "product"}]
    )
    categorical.update(task="generatedentities", judge="rule")
    for name, result, metrics in (("bins", binned, ("false_refusal_rate", "hallucination_rate")),
                                  ("domains", categorical, ("false_acceptance_rate",))):
        path = tmp_path / f"{name}.png"
        report.plot(result, metrics, path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = report.table(categorical, ("false_acceptance_rate",))
    assert "| domain:business | 1 |" in table and "| place_tier:none | 1 |" in table
