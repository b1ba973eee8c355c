"""Entity rarity as perplexity (WildHallucinations section 2.2): the bare entity string, without any
context, scored by a local causal LM (the paper used Llama-3-8B) through lm-eval's HFLM
``loglikelihood_rolling``. Perplexity = exp(-log-likelihood / number of tokens), the tokens being
those lm-eval scores (``tok_encode`` of the string, each predicted from the ones before it and the
model's prefix token). The model loads once per run."""

from __future__ import annotations

import math
from collections.abc import Sequence

from hallubench.core.backends import backend_spec
from hallubench.core.backends.hf_local import ALLOWED_KEYS, embedded_model_args
from hallubench.core.errors import HallubenchError

RARITY_KINDS = ("hf", "smollm2")
MODEL_KEYS = ALLOWED_KEYS - {"trust_remote_code"}  # remote code is never run


class EntityPerplexity:
    """Perplexity scorer for ``hf:pretrained=...`` (or ``smollm2``) specs."""

    def __init__(self, spec_text: str):
        spec = backend_spec(spec_text)
        if spec.kind not in RARITY_KINDS:
            raise HallubenchError(
                f"--rarity-model needs a local model spec (hf:pretrained=... or smollm2), got {spec.kind!r}"
            )
        args = {**embedded_model_args(), **spec.args} if spec.kind == "smollm2" else dict(spec.args)
        if set(args) - MODEL_KEYS or "pretrained" not in args:
            raise HallubenchError(f"bad --rarity-model spec: needs pretrained=..., allowed keys {sorted(MODEL_KEYS)}")
        self.spec = spec.public()
        self._args = {"batch_size": 16, "device": "cpu", **args}
        self._lm = None

    def _model(self):
        if self._lm is None:
            from lm_eval.models.huggingface import HFLM

            try:
                self._lm = HFLM(**self._args)
            except (OSError, ValueError) as exc:
                raise HallubenchError(f"cannot load rarity model {self._args['pretrained']!r}: {exc}") from exc
        return self._lm

    def perplexities(self, entities: Sequence[str]) -> list[float]:
        """One perplexity per entity, in order."""
        from lm_eval.api.instance import Instance

        lm = self._model()
        requests = [Instance("loglikelihood_rolling", {}, (entity,), i) for i, entity in enumerate(entities)]
        loglikelihoods = lm.loglikelihood_rolling(requests)
        return [math.exp(-ll / max(1, len(lm.tok_encode(e)))) for e, ll in zip(entities, loglikelihoods)]
