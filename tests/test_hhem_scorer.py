"""HHEM-2.1 / HHEM-1.0 / NLI scorers loaded through ``make_classifier_scorer`` from tiny random stand-ins that
the tests write to folders in the Hub's layout (no real weights exist offline)."""

from __future__ import annotations

import os
import pickle
import random
import shutil

import pytest

from hallu_metrics.scorers import HHEM_2_1_PROMPT, make_classifier_scorer, score_to_likert
from hallu_metrics.scorers.stand_ins import write_hhem_1_0, write_hhem_2_1, write_nli
from hallubench.core.errors import HallubenchError

WORDS = [f"w{i}" for i in range(300)]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("classifiers")
    hhem, foundation = write_hhem_2_1(root, WORDS)
    return {"hhem-2.1": hhem, "foundation": foundation, "hhem-1.0": write_hhem_1_0(root, WORDS),
            "nli": write_nli(root, WORDS)}


@pytest.fixture(scope="module")
def pairs():
    rng = random.Random("hhem-scorer:pairs")
    return [(sentence(rng, rng.randint(3, 60)), sentence(rng, rng.randint(2, 12))) for _ in range(9)]


def spec(folders, kind: str, **extra: str) -> dict[str, str]:
    args = {"model": str(folders[kind]), "kind": kind, "device": "cpu", **extra}
    if kind == "hhem-2.1":
        args["foundation"] = str(folders["foundation"])
    return args


def hhem_2_1_reference(folders, pairs) -> list[float]:
    """HHEM-2.1's own recipe, computed independently: format the prompt, tokenize the strings whole with
    padding, run T5ForTokenClassification, softmax over the first token's two logits, take index 1."""
    import torch
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

    module = T5ForTokenClassification(AutoConfig.from_pretrained(folders["foundation"], num_labels=2)).eval()
    weights = load_file(folders["hhem-2.1"] / "model.safetensors")
    module.load_state_dict({k.removeprefix("t5."): v for k, v in weights.items()}, strict=False)
    tokenizer = AutoTokenizer.from_pretrained(folders["foundation"])
    texts = [HHEM_2_1_PROMPT.format(premise=p, hypothesis=h) for p, h in pairs]
    with torch.no_grad():
        logits = module(**tokenizer(texts, return_tensors="pt", padding=True)).logits
    return torch.softmax(logits[:, 0, :], dim=-1)[:, 1].tolist()


def test_hhem_2_1_matches_the_models_own_recipe(folders, pairs):
    """On pairs that fit one window, the scorer equals HHEM-2.1's predict() recipe (prompt, first-token
    softmax, 'consistent' = index 1): the template, tokenizer pieces, tied embedding and head are right."""
    scores = make_classifier_scorer(spec(folders, "hhem-2.1")).score(pairs)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert max(scores) - min(scores) > 0.01, "stand-in scores should spread, or the comparison proves little"
    assert scores == pytest.approx(hhem_2_1_reference(folders, pairs), abs=1e-5)


def test_cross_encoders_match_their_own_pair_encoding(folders, pairs):
    """HHEM-1.0 is the sigmoid of its one logit over tokenizer(premise, hypothesis); an NLI model is the softmax
    probability of the label named 'entailment' (index 1 here, found through config.label2id), with the
    tokenizer's token types passed through (the BERT stand-in uses them)."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    for kind in ("hhem-1.0", "nli"):
        module = AutoModelForSequenceClassification.from_pretrained(folders[kind]).eval()
        tokenizer = AutoTokenizer.from_pretrained(folders[kind])
        with torch.no_grad():
            logits = module(**tokenizer([p for p, _ in pairs], [h for _, h in pairs], return_tensors="pt",
                                        padding=True)).logits
        expected = torch.sigmoid(logits[:, 0]) if kind == "hhem-1.0" else torch.softmax(logits, -1)[:, 1]
        scores = make_classifier_scorer(spec(folders, kind)).score(pairs)
        assert all(0.0 <= s <= 1.0 for s in scores)
        assert max(scores) - min(scores) > 0.01
        assert scores == pytest.approx(expected.tolist(), abs=1e-5)


def test_nli_label_can_be_chosen(folders, pairs):
    """label=neutral scores P(neutral) instead; a label the model lacks is a one-line error naming its labels."""
    neutral = make_classifier_scorer(spec(folders, "nli", label="NEUTRAL")).score(pairs[:2])
    entailment = make_classifier_scorer(spec(folders, "nli")).score(pairs[:2])
    assert neutral != pytest.approx(entailment, abs=1e-3)
    with pytest.raises(HallubenchError, match=r"no label 'supported' .*contradiction"):
        make_classifier_scorer(spec(folders, "nli", label="supported"))


@pytest.mark.parametrize("kind", ["hhem-2.1", "hhem-1.0", "nli"])
def test_batching_gives_the_numbers_of_one_window_at_a_time(folders, pairs, kind):
    """Padding and masking do not change a score: batch_size=4 equals batch_size=1, long pairs included."""
    rng = random.Random(f"hhem-scorer:long:{kind}")
    mixed = pairs + [(sentence(rng, 700), sentence(rng, 15)), (sentence(rng, 1300), sentence(rng, 40))]
    batched = make_classifier_scorer(spec(folders, kind, batch_size="4")).score(mixed)
    single = make_classifier_scorer(spec(folders, kind, batch_size="1")).score(mixed)
    assert batched == pytest.approx(single, abs=1e-5)


@pytest.mark.parametrize("kind", ["hhem-2.1", "hhem-1.0"])
def test_sliding_score_is_the_max_over_the_reference_segments(folders, kind):
    """End to end with a real model: the sliding score of a long pair is the maximum of the scores of its
    segments scored as short pairs (one token per word, so word slices are the token windows), and plain
    truncation is the first segment's score."""
    rng = random.Random(f"hhem-scorer:segments:{kind}")
    premise, hypothesis = sentence(rng, 300), sentence(rng, 10)
    sliding = make_classifier_scorer(spec(folders, kind, max_length="128", overlap="16"))
    words, room = premise.split(), 128 - sliding.layout.overhead - 10
    segments, end = [words[:room]], room
    while end < len(words):
        segments.append(words[end - 16: end - 16 + room])
        end += room - 16
    assert len(segments) > 2
    per_segment = sliding.score([(" ".join(segment), hypothesis) for segment in segments])
    assert sliding.score([(premise, hypothesis)]) == pytest.approx([max(per_segment)], abs=1e-5)
    truncating = make_classifier_scorer(spec(folders, kind, max_length="128", window="truncate"))
    assert truncating.score([(premise, hypothesis)]) == pytest.approx(per_segment[:1], abs=1e-5)


def test_identity_names_model_content_and_windowing(folders):
    """The identity (a cache-key part) names the kind, a digest of the local files and the windowing, and
    changes when the windowing does; batch size and device, which do not change scores, are not in it."""
    base = make_classifier_scorer(spec(folders, "hhem-2.1")).identity
    assert base.startswith("hhem-2.1:local:") and "window=sliding,overlap=32,max_length=512" in base
    assert make_classifier_scorer(spec(folders, "hhem-2.1", batch_size="2")).identity == base
    assert make_classifier_scorer(spec(folders, "hhem-2.1", window="truncate")).identity != base
    assert make_classifier_scorer(spec(folders, "hhem-1.0")).identity.startswith("hhem-1.0:local:")


@pytest.mark.parametrize("args,message", [
    ({}, "model=HUB_ID_OR_FOLDER is required"),
    ({"model": "x", "temperature": "0"}, r"unknown keys \['temperature'\]"),
    ({"model": "x", "batch_size": "eight"}, "batch_size='eight' is not a whole number"),
    ({"model": "x", "overlap": "-1"}, "overlap=-1 is below 0"),
    ({"model": "x", "kind": "bert"}, "kind='bert'"),
    ({"model": "x", "window": "sliding-ish"}, "window='sliding-ish'"),
    ({"model": "x", "kind": "hhem-1.0", "label": "entailment"}, r"\['label'\] do not apply to kind=hhem-1.0"),
    ({"model": "x", "device": "gpu0"}, "device='gpu0' is not a torch device"),
    ({"model": "./no/such/folder"}, "no folder ./no/such/folder"),
])
def test_bad_specs_are_one_line_errors(args, message):
    """Spec mistakes are reported before anything loads, as one-line HallubenchErrors naming the key."""
    with pytest.raises(HallubenchError, match=message) as error:
        make_classifier_scorer(args)
    assert "\n" not in str(error.value)


def test_revision_on_a_local_folder_and_unreachable_hub_model_are_errors(folders):
    """A revision cannot apply to a local folder; a Hub model absent from the offline cache is a one-line
    'cannot load' error, not a traceback."""
    with pytest.raises(HallubenchError, match="is a local folder"):
        make_classifier_scorer({**spec(folders, "nli"), "revision": "main"})
    with pytest.raises(HallubenchError, match="cannot load HHEM-2.1") as error:
        make_classifier_scorer({"model": "vectara/hallucination_evaluation_model"})
    assert "\n" not in str(error.value)


def test_a_classifier_with_pickled_weights_is_refused_in_one_line_and_never_unpickled(folders, tmp_path):
    """A folder whose weights are a pickle (pytorch_model.bin) that would run code if loaded: refused before any
    unpickling (safetensors only), one line."""
    folder = tmp_path / "pickled"
    shutil.copytree(folders["nli"], folder)
    weights = next(folder.glob("*.safetensors"))
    weights.unlink()
    marker = tmp_path / "ran"
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(_RunsCode(str(marker))))
    with pytest.raises(HallubenchError, match="^cannot load the classifier: ") as error:
        make_classifier_scorer({**spec(folders, "nli"), "model": str(folder)})
    assert "\n" not in str(error.value) and not marker.exists()


class _RunsCode:
    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (os.system, (f"touch {self.path}",))


def test_score_to_likert_is_linear_onto_one_to_five():
    """0 -> 1, 0.5 -> 3, 1 -> 5; a value outside [0, 1] is an error."""
    assert [score_to_likert(p) for p in (0.0, 0.25, 0.5, 1.0)] == [1.0, 2.0, 3.0, 5.0]
    with pytest.raises(HallubenchError):
        score_to_likert(1.2)


MODEL_CARD_PAIRS = [
    ("The capital of France is Berlin.", "The capital of France is Paris."),
    ("I am in California", "I am in United States."),
    ("I am in United States", "I am in California."),
    ("A person on a horse jumps over a broken down airplane.", "A person is outdoors, on a horse."),
    ("A boy is jumping on skateboard in the middle of a red bridge.",
     "The boy skates down the sidewalk on a red bridge"),
    ("A man with blond-hair, and a brown shirt drinking out of a public water fountain.",
     "A blond man wearing a brown shirt is reading a book."),
    ("Mark Wahlberg was a fan of Manny.", "Manny was a fan of Mark Wahlberg."),
]
MODEL_CARD_SCORES = [0.0111, 0.6474, 0.1290, 0.8969, 0.1846, 0.0050, 0.0543]


def test_real_hhem_2_1_reproduces_its_model_card():
    """With the real weights in the local Hugging Face cache, the re-implemented HHEM-2.1 gives the scores its
    model card prints for its seven example pairs (skipped when the weights are not cached, as offline)."""
    try:
        scorer = make_classifier_scorer({"model": "vectara/hallucination_evaluation_model", "device": "cpu"})
    except HallubenchError as error:
        pytest.skip(f"real HHEM-2.1 not in the local cache: {error}")
    assert scorer.score(MODEL_CARD_PAIRS) == pytest.approx(MODEL_CARD_SCORES, abs=2e-4)
