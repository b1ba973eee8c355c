"""Randomly initialised stand-ins for the classifiers, written to folders in the layout the loaders read.

No NLI or HHEM weights exist offline. Tests and speed benchmarks build these instead and load them through
``make_classifier_scorer``: same loading, windowing and batching code, random weights, a word-level tokenizer
(one token per word or punctuation mark). ``FLAN_T5_BASE_CONFIG`` is flan-t5-base's architecture, so an
HHEM-2.1 stand-in built with it costs the real model's compute.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hallu_metrics.scorers.hhem import HHEM_2_1_PROMPT, HHEM_2_1_WEIGHTS

# google/flan-t5-base's config.json (architecture fields): 109,630,082 parameters with HHEM's 2-way head.
FLAN_T5_BASE_CONFIG: dict[str, Any] = {
    "vocab_size": 32128, "d_model": 768, "d_kv": 64, "d_ff": 2048, "num_layers": 12, "num_decoder_layers": 12,
    "num_heads": 12, "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128,
    "dropout_rate": 0.1, "layer_norm_epsilon": 1e-6, "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False,
    "pad_token_id": 0, "eos_token_id": 1, "decoder_start_token_id": 0,
}
TINY_T5_CONFIG: dict[str, Any] = {
    **FLAN_T5_BASE_CONFIG, "d_model": 32, "d_kv": 8, "d_ff": 64, "num_layers": 2, "num_decoder_layers": 2,
    "num_heads": 4,
}
TEMPLATE_WORDS = tuple(dict.fromkeys(re.findall(r"\w+|[^\w\s]", HHEM_2_1_PROMPT.replace("<pad>", "").format(
    premise="", hypothesis=""))))
# Cross-encoders' default init (0.02) gives near-constant scores; 0.3 spreads them over (0.02, 0.85).
SPREAD_INIT_RANGE = 0.3
NLI_LABELS = {0: "contradiction", 1: "entailment", 2: "neutral"}


def word_tokenizer(words: Sequence[str], style: str) -> Any:
    """A word-level fast tokenizer: ``style="t5"`` appends ``</s>`` like T5's; ``"cross-encoder"`` builds
    ``[CLS] a [SEP] b [SEP]`` with token types 0 then 1, like BERT's and DeBERTa's."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    if style == "t5":
        specials = {"pad_token": "<pad>", "eos_token": "</s>", "unk_token": "<unk>"}
    else:
        specials = {"pad_token": "[PAD]", "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]",
                    "mask_token": "[MASK]"}
    vocab = {token: i for i, token in enumerate(dict.fromkeys([*specials.values(), *TEMPLATE_WORDS, *words]))}
    backend = Tokenizer(models.WordLevel(vocab, unk_token=specials["unk_token"]))
    backend.pre_tokenizer = pre_tokenizers.Whitespace()
    if style == "t5":
        backend.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", vocab["</s>"])])
        names = ["input_ids", "attention_mask"]
    else:
        backend.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
            special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
        names = ["input_ids", "token_type_ids", "attention_mask"]
    return PreTrainedTokenizerFast(tokenizer_object=backend, model_input_names=names, **specials)


def write_hhem_2_1(folder: Path, words: Sequence[str], t5_config: dict[str, Any] = TINY_T5_CONFIG,
                   seed: int = 0) -> tuple[Path, Path]:
    """An HHEM-2.1-shaped checkpoint (``model.safetensors`` with ``t5.``-prefixed keys, the input embedding
    stored once as ``shared``) and its foundation folder (T5 config + tokenizer). Returns (model, foundation)."""
    import torch
    from safetensors.torch import save_file
    from transformers import T5Config, T5ForTokenClassification

    model_dir, foundation_dir = folder / "hhem", folder / "foundation"
    model_dir.mkdir(parents=True, exist_ok=True)
    config = T5Config(**t5_config, num_labels=2)
    tokenizer = word_tokenizer(words, "t5")
    torch.manual_seed(seed)
    module = T5ForTokenClassification(config).eval()
    _centre_head(module, tokenizer)
    state = {f"t5.{key}": value.contiguous() for key, value in module.state_dict().items()
             if key != "transformer.encoder.embed_tokens.weight"}
    save_file(state, str(model_dir / HHEM_2_1_WEIGHTS))
    config.save_pretrained(foundation_dir)
    tokenizer.save_pretrained(foundation_dir)
    return model_dir, foundation_dir


def _centre_head(module: Any, tokenizer: Any) -> None:
    """Shift the head's bias so that the empty pair scores 0.5: random T5 logits are large, and the scores
    would sit at 0 or 1 where comparisons prove little."""
    import torch

    encoded = tokenizer(HHEM_2_1_PROMPT.format(premise="", hypothesis=""), return_tensors="pt")
    with torch.no_grad():
        logits = module(**encoded).logits[0, 0]
        module.classifier.bias -= logits - logits.mean()


def write_hhem_1_0(folder: Path, words: Sequence[str], seed: int = 0) -> Path:
    """A tiny DeBERTa-v3-style cross-encoder with one logit, as HHEM-1.0-Open."""
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    tokenizer = word_tokenizer(words, "cross-encoder")
    config = DebertaV2Config(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=512, relative_attention=True, position_biased_input=False,
        pos_att_type=["p2c", "c2p"], type_vocab_size=0, num_labels=1, pad_token_id=tokenizer.pad_token_id,
        initializer_range=SPREAD_INIT_RANGE,
    )
    return _save(DebertaV2ForSequenceClassification, config, tokenizer, folder / "hhem-1.0", seed)


def write_nli(folder: Path, words: Sequence[str], seed: int = 0) -> Path:
    """A tiny BERT NLI classifier (labels contradiction, entailment, neutral; token types used)."""
    from transformers import BertConfig, BertForSequenceClassification

    tokenizer = word_tokenizer(words, "cross-encoder")
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=512, type_vocab_size=2, id2label=NLI_LABELS,
        label2id={name: index for index, name in NLI_LABELS.items()}, pad_token_id=tokenizer.pad_token_id,
        initializer_range=SPREAD_INIT_RANGE,
    )
    return _save(BertForSequenceClassification, config, tokenizer, folder / "nli", seed)


def _save(model_class: Any, config: Any, tokenizer: Any, folder: Path, seed: int) -> Path:
    import torch

    torch.manual_seed(seed)
    model_class(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
