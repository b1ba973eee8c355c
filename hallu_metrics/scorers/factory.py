"""``make_classifier_scorer``: a classifier scorer from spec arguments (``key=value`` strings)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hallu_metrics.scorers.classifier import ClassifierScorer
from hallu_metrics.scorers.hhem import (
    FLAN_T5_BASE_ID,
    FLAN_T5_BASE_REVISION,
    HHEM_1_0_REVISION,
    HHEM_2_1_REVISION,
    HHEM_MODEL_ID,
    KINDS,
    ModelSource,
    ScorerSettings,
    load_hhem_2_1,
    load_sequence_classifier,
)
from hallubench.core.errors import HallubenchError

SPEC_KEYS = (
    "model", "revision", "kind", "window", "overlap", "max_length", "batch_size", "device",
    "foundation", "foundation_revision", "label",
)
KIND_ONLY_KEYS = {"foundation": "hhem-2.1", "foundation_revision": "hhem-2.1", "label": "nli"}
WINDOWS = ("sliding", "truncate")
PINNED = {(HHEM_MODEL_ID, "hhem-2.1"): HHEM_2_1_REVISION, (HHEM_MODEL_ID, "hhem-1.0"): HHEM_1_0_REVISION,
          (FLAN_T5_BASE_ID, "foundation"): FLAN_T5_BASE_REVISION}
DEFAULTS = ScorerSettings()


def make_classifier_scorer(args: Mapping[str, str]) -> ClassifierScorer:
    """Build a scorer, e.g. from ``model=vectara/hallucination_evaluation_model,kind=hhem-2.1,window=sliding``.

    Keys: ``model`` (Hub id or local folder, required), ``revision`` (Hub only; pinned for HHEM, else main),
    ``kind`` (hhem-2.1 | hhem-1.0 | nli), ``window`` (sliding | truncate), ``overlap`` (32), ``max_length``
    (512), ``batch_size`` (8), ``device`` (cuda when visible, else cpu); hhem-2.1 only: ``foundation`` and
    ``foundation_revision`` (flan-t5-base, pinned); nli only: ``label`` (entailment).
    """
    unknown = sorted(set(args) - set(SPEC_KEYS))
    if unknown:
        raise HallubenchError(f"bad classifier spec: unknown keys {unknown} (allowed: {', '.join(SPEC_KEYS)})")
    if not args.get("model"):
        raise HallubenchError("bad classifier spec: model=HUB_ID_OR_FOLDER is required")
    kind = args.get("kind", "hhem-2.1")
    if kind not in KINDS:
        raise HallubenchError(f"bad classifier spec: kind={kind!r} (expected one of: {', '.join(KINDS)})")
    misplaced = sorted(key for key, owner in KIND_ONLY_KEYS.items() if key in args and owner != kind)
    if misplaced:
        raise HallubenchError(f"bad classifier spec: {misplaced} do not apply to kind={kind}")
    window = args.get("window", DEFAULTS.window)
    if window not in WINDOWS:
        raise HallubenchError(f"bad classifier spec: window={window!r} (expected one of: {', '.join(WINDOWS)})")
    settings = ScorerSettings(
        window=window,
        overlap=_whole_number(args, "overlap", DEFAULTS.overlap, minimum=0),
        max_length=_whole_number(args, "max_length", DEFAULTS.max_length, minimum=8),
        batch_size=_whole_number(args, "batch_size", DEFAULTS.batch_size, minimum=1),
        device=_device(args.get("device")),
    )
    source = _source(args["model"], args.get("revision"), kind)
    if kind == "hhem-2.1":
        foundation = _source(args.get("foundation", FLAN_T5_BASE_ID), args.get("foundation_revision"), "foundation")
        return load_hhem_2_1(source, foundation, settings)
    return load_sequence_classifier(source, kind, args.get("label", "entailment"), settings)


def _whole_number(args: Mapping[str, str], key: str, default: int, minimum: int) -> int:
    text = args.get(key)
    if text is None:
        return default
    try:
        value = int(text)
    except ValueError:
        raise HallubenchError(f"bad classifier spec: {key}={text!r} is not a whole number") from None
    if value < minimum:
        raise HallubenchError(f"bad classifier spec: {key}={value} is below {minimum}")
    return value


def _device(text: str | None) -> str:
    import torch

    if text is None:
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        device = torch.device(text)
    except RuntimeError:
        raise HallubenchError(f"bad classifier spec: device={text!r} is not a torch device") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise HallubenchError(f"bad classifier spec: device={text} but no CUDA GPU is visible")
    return text


def _source(name: str, revision: str | None, role: str) -> ModelSource:
    """A local folder (no revision) or a Hub id at ``revision``, at the pinned one, or at main."""
    if Path(name).expanduser().is_dir():
        if revision is not None:
            raise HallubenchError(f"bad classifier spec: a revision applies to Hub ids, {name} is a local folder")
        return ModelSource(str(Path(name).expanduser()), None)
    if name.startswith((".", "/", "~")):
        raise HallubenchError(f"bad classifier spec: no folder {name}")
    return ModelSource(name, revision or PINNED.get((name, role), "main"))
