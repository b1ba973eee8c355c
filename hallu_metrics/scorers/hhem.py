"""Loading HHEM-2.1-Open, HHEM-1.0-Open and generic NLI classifiers as windowed scorers.

HHEM-2.1-Open (Bao et al., 2024; HalluLens section 4.1) is flan-t5-base's encoder with a two-way token
classification head read at the first position (labels ``hallucinated``, ``consistent``). Its Hub repository
ships custom model code; none of it runs here. The head is transformers' own ``T5ForTokenClassification``
built from the foundation's config, the weights come from the repository's ``model.safetensors`` (keys under
``t5.``), and the prompt template below is the one that code formats pairs with.
HHEM-1.0-Open, used by Jing et al. (section 3.2), is a DeBERTa-v3 cross-encoder with one logit: P = sigmoid.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hallu_metrics.scorers.classifier import TorchPairModel, WindowedPairScorer, layout_from_tokenizer
from hallubench.core.errors import HallubenchError

HHEM_MODEL_ID = "vectara/hallucination_evaluation_model"
# Pinned Hub commits; update them (and docs/faithfulness.md) when Vectara publishes a new HHEM.
HHEM_2_1_REVISION = "8e4a2e6e96c708cc76c2344f7e4757df2515292c"  # main as of 2025-10-20: HHEM-2.1-Open
HHEM_1_0_REVISION = "58383384656cbaec2949a75a41f20e891e90a73b"  # head of the hhem-1.0-open branch
FLAN_T5_BASE_ID = "google/flan-t5-base"
FLAN_T5_BASE_REVISION = "7bcac572ce56db69c1ea7c8af255c5d7c9672fc2"
HHEM_2_1_WEIGHTS = "model.safetensors"
HHEM_2_1_PROMPT = (
    "<pad> Determine if the hypothesis is true given the premise?\n\nPremise: {premise}\n\nHypothesis: {hypothesis}"
)
HHEM_2_1_CONSISTENT = 1  # index of the "consistent" output neuron ("hallucinated" is 0)

KINDS = ("hhem-2.1", "hhem-1.0", "nli")


@dataclass(frozen=True)
class ModelSource:
    """A model on the Hub (id + revision) or in a local folder (revision None)."""

    name: str
    revision: str | None

    @property
    def local(self) -> bool:
        return self.revision is None

    def from_pretrained_kwargs(self) -> dict[str, Any]:
        return {"trust_remote_code": False, **({} if self.local else {"revision": self.revision})}

    def ref(self) -> str:
        """Stable name for cache keys: ``id@revision``, or a hash of a local folder's files."""
        return f"local:{folder_digest(Path(self.name))}" if self.local else f"{self.name}@{self.revision}"

    def file(self, filename: str) -> Path:
        if self.local:
            path = Path(self.name) / filename
            if not path.is_file():
                raise HallubenchError(f"{self.name} has no {filename}")
            return path
        from huggingface_hub import hf_hub_download

        return Path(hf_hub_download(self.name, filename, revision=self.revision))


@dataclass(frozen=True)
class ScorerSettings:
    """How pairs are windowed and run; ``describe`` is the part of the identity that changes scores."""

    window: str = "sliding"
    overlap: int = 32
    max_length: int = 512
    batch_size: int = 8
    device: str = "cpu"

    def describe(self) -> str:
        return f"window={self.window},overlap={self.overlap},max_length={self.max_length}"


def folder_digest(folder: Path) -> str:
    """First 12 hex digits of the SHA-256 of a folder's top-level files (names and bytes)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")):
        digest.update(path.name.encode() + b"\0")
        with path.open("rb") as handle:
            for block in iter(functools.partial(handle.read, 1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:12]


def loading_errors(what: str) -> Callable:
    """Decorator turning the Hub's and transformers' loading errors into one-line HallubenchErrors."""
    from huggingface_hub.errors import EntryNotFoundError

    def wrap(load: Callable) -> Callable:
        @functools.wraps(load)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return load(*args, **kwargs)
            except (OSError, ValueError, EntryNotFoundError) as exc:
                first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise HallubenchError(f"cannot load {what}: {first_line}") from exc

        return run

    return wrap


def hhem_2_1_probability(logits: Any) -> Any:
    """P(consistent): softmax over the two logits of the first token (the prompt's leading <pad>)."""
    import torch

    return torch.softmax(logits[:, 0, :], dim=-1)[:, HHEM_2_1_CONSISTENT]


def single_logit_probability(logits: Any) -> Any:
    """HHEM-1.0's score: the sigmoid of its one logit."""
    import torch

    return torch.sigmoid(logits[:, 0])


def label_probability(logits: Any, index: int) -> Any:
    """An NLI classifier's P(label): softmax over its labels."""
    import torch

    return torch.softmax(logits, dim=-1)[:, index]


def _scorer(identity: str, tokenizer: Any, module: Any, head: Callable, encode_pair: Callable,
            settings: ScorerSettings) -> WindowedPairScorer:
    token_types = "token_type_ids" in tokenizer.model_input_names
    return WindowedPairScorer(
        identity=f"{identity}|{settings.describe()}",
        encode=lambda texts: tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"],
        layout=layout_from_tokenizer(tokenizer, encode_pair),
        model=TorchPairModel(module, head, settings.device, tokenizer.pad_token_id or 0, token_types),
        max_length=settings.max_length,
        overlap=settings.overlap,
        sliding=settings.window == "sliding",
        batch_size=settings.batch_size,
    )


@loading_errors("HHEM-2.1")
def load_hhem_2_1(source: ModelSource, foundation: ModelSource, settings: ScorerSettings) -> WindowedPairScorer:
    """HHEM-2.1-Open from its weights file plus the foundation's (flan-t5-base's) config and tokenizer."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoTokenizer, T5ForTokenClassification

    config = AutoConfig.from_pretrained(foundation.name, num_labels=2, **foundation.from_pretrained_kwargs())
    if config.model_type != "t5":
        raise HallubenchError(f"HHEM-2.1's foundation must be a T5 model, {foundation.name} is {config.model_type}")
    module = T5ForTokenClassification(config)
    state = {key.removeprefix("t5."): value for key, value in load_file(source.file(HHEM_2_1_WEIGHTS)).items()}
    missing, unexpected = module.load_state_dict(state, strict=False)
    # The checkpoint stores the input embedding once, as `shared`; the encoder's copy is tied to it.
    if unexpected or set(missing) - {"transformer.encoder.embed_tokens.weight"}:
        raise HallubenchError(f"{source.name} does not hold HHEM-2.1 weights (missing {missing[:3]}, "
                              f"unexpected {unexpected[:3]})")
    if missing:
        module.transformer.encoder.set_input_embeddings(module.transformer.shared)
    tokenizer = AutoTokenizer.from_pretrained(foundation.name, **foundation.from_pretrained_kwargs())

    def encode_pair(premise: str, hypothesis: str) -> dict:
        return tokenizer(HHEM_2_1_PROMPT.format(premise=premise, hypothesis=hypothesis))

    identity = f"hhem-2.1:{source.ref()}+{foundation.ref()}"
    return _scorer(identity, tokenizer, module, hhem_2_1_probability, encode_pair, settings)


def label_index(label2id: dict[str, int], label: str) -> int:
    """Index of ``label`` among a classifier's labels, ignoring case."""
    found = {name.lower(): index for name, index in label2id.items()}.get(label.lower())
    if found is None:
        raise HallubenchError(f"the classifier has no label {label!r} (its labels: {sorted(label2id)}); pass label=...")
    return found


@loading_errors("the classifier")
def load_sequence_classifier(
    source: ModelSource, kind: str, label: str, settings: ScorerSettings
) -> WindowedPairScorer:
    """A cross-encoder (``[CLS] premise [SEP] hypothesis [SEP]``): HHEM-1.0 (one logit) or an NLI model."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    # safetensors only: a pickled weights file (pytorch_model.bin) is refused, never unpickled
    module = AutoModelForSequenceClassification.from_pretrained(source.name, use_safetensors=True,
                                                                **source.from_pretrained_kwargs())
    config = module.config
    if settings.max_length > getattr(config, "max_position_embeddings", settings.max_length):
        raise HallubenchError(f"max_length={settings.max_length} exceeds the model's "
                              f"{config.max_position_embeddings} positions")
    if kind == "hhem-1.0":
        if config.num_labels != 1:
            raise HallubenchError(f"HHEM-1.0 has one output, {source.name} has {config.num_labels}")
        head: Callable = single_logit_probability
        identity = f"hhem-1.0:{source.ref()}"
    else:
        head = functools.partial(label_probability, index=label_index(config.label2id, label))
        identity = f"nli:{source.ref()}:{label}"
    tokenizer = AutoTokenizer.from_pretrained(source.name, **source.from_pretrained_kwargs())
    return _scorer(identity, tokenizer, module, head, lambda a, b: tokenizer(a, b), settings)
