"""The built-in summarizer: extractive, deterministic, no model.

Contract: ``ExtractiveSummarizer().summarize(texts, max_chars=n)`` returns at most ``n`` characters
made of whole sentences taken verbatim from ``texts`` (the single most central sentence is cut at a
word boundary, ending in "…", when even it does not fit). Sentences are ranked by centrality: the
sum of their content-word overlap (Jaccard) with every other sentence, so the sentences that share
the most vocabulary with the rest stand for it. Ties go to the earlier sentence; the chosen
sentences are emitted in their original order. Same input, same output; no I/O; raises
``ValueError`` for ``max_chars < 1``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from worlddb.extract.builtin import split_sentences

__all__ = ["ExtractiveSummarizer"]

_CONTENT_WORD = re.compile(r"[a-z0-9][a-z0-9'’-]*")
# Function words carry no topic; overlap on them would make every sentence look central.
_FUNCTION_WORDS = frozenset("""
a an the and or but if so of to in on at by for with from as is are was were be been being am do
does did have has had i me my we our you your he him his she her it its they them their this that
these those there here what which who how when where why not no yes just very really too also
can could would should will shall may might must i'm it's that's i've i'll don't can't
""".split())


def _content_words(sentence: str) -> frozenset[str]:
    return frozenset(w for w in _CONTENT_WORD.findall(sentence.lower()) if w not in _FUNCTION_WORDS)


class ExtractiveSummarizer:
    """Picks the most central sentences that fit in ``max_chars`` (see the module contract)."""

    name = "extractive"

    def summarize(self, texts: Sequence[str], *, max_chars: int) -> str:
        if max_chars < 1:
            raise ValueError("max_chars must be at least 1")
        sentences = [text[s:e] for text in texts for s, e in split_sentences(text)]
        if not sentences:
            return ""
        words = [_content_words(s) for s in sentences]
        centrality = []
        for i, wi in enumerate(words):
            total = 0.0
            for j, wj in enumerate(words):
                if i != j and wi and wj:
                    total += len(wi & wj) / len(wi | wj)
            centrality.append(total)
        ranked = sorted(range(len(sentences)), key=lambda i: (-centrality[i], i))
        chosen: list[int] = []
        used = 0
        for i in ranked:
            cost = len(sentences[i]) + (1 if chosen else 0)
            if used + cost <= max_chars:
                chosen.append(i)
                used += cost
        if not chosen:
            return _cut(sentences[ranked[0]], max_chars)
        return " ".join(sentences[i] for i in sorted(chosen))


def _cut(sentence: str, max_chars: int) -> str:
    if max_chars == 1:
        return "…"
    head = sentence[: max_chars - 1]
    if " " in head and not sentence[max_chars - 1].isspace():
        head = head[: head.rindex(" ")]
    return head.rstrip() + "…"
