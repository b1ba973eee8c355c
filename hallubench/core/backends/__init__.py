"""Model backends: one spec string names a model for generators and judges alike.

- ``openai:base_url=URL[|URL2],model=NAME[,concurrency=K,timeout=S,max_retries=R,api_key_env=VAR]``
- ``openai-batch:base_url=URL,model=NAME[,poll=S,window=24h,retry=wave|realtime,quiet=S]`` (the Batch API)
- ``hf:pretrained=PATH_OR_ID[,gguf_file=F,batch_size=B,device=cpu]``
- ``smollm2`` (the embedded SmolLM2-135M-Instruct, an ``hf`` backend)
"""

from __future__ import annotations

from hallubench.core.backends.base import ChatRequest, Completion
from hallubench.core.backends.cache import CallCache
from hallubench.core.backends.client import ModelClient
from hallubench.core.backends.hf_local import HFLocalBackend, embedded_model_args
from hallubench.core.specs import Spec, parse_spec

BACKEND_KINDS = ("openai", "openai-batch", "hf", "smollm2")
OPENAI_KINDS = ("openai", "openai-batch")  # OpenAI-compatible servers: structured outputs

__all__ = ["ChatRequest", "Completion", "CallCache", "ModelClient", "make_client", "BACKEND_KINDS", "OPENAI_KINDS",
           "backend_spec"]


def backend_spec(text: str) -> Spec:
    """Parse a backend spec string (validated when the client is made)."""
    return parse_spec(text, BACKEND_KINDS)


def make_client(spec: Spec, cache: CallCache | None) -> ModelClient:
    """A cached client for a parsed backend spec."""
    if spec.kind == "openai":
        from hallubench.core.backends.openai_http import (
            OpenAIChatBackend,  # httpx (and its CLI's rich, click): only here
        )

        backend = OpenAIChatBackend.from_args(spec.args)
    elif spec.kind == "openai-batch":
        from hallubench.core.backends.openai_batch import OpenAIBatchBackend

        backend = OpenAIBatchBackend.from_args(spec.args, cache)
    elif spec.kind == "hf":
        backend = HFLocalBackend.from_args(spec.args)
    else:
        backend = HFLocalBackend.from_args({**embedded_model_args(), **spec.args})
    return ModelClient(backend, cache, spec.public())
