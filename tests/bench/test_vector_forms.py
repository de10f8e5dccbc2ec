"""bench.vector_forms counts the tokens each store form embeds; the count means something only
if it names the texts the model really runs over."""

from __future__ import annotations

import pytest

from bench import vector_forms
from worlddb.core.records import Node
from worlddb.core.timeutil import parse_time
from worlddb.graph import text_index
from worlddb.vectors.embedder import MiniLMEmbedder

TURNS = [Node("Turn", name="Caroline", content="I went to a support group yesterday. It was powerful.",
              meta={"speaker": "Caroline"}),
         Node("Turn", name="Melanie", content="That sounds lovely!", meta={"speaker": "Melanie", "caption": "a lake"})]


@pytest.mark.parametrize("form", text_index.FORMS)
def test_the_counted_texts_are_the_ones_the_model_runs(form, monkeypatch):
    embedder = MiniLMEmbedder(threads=1)
    ran: list[str] = []
    windows = embedder._windows_with_offsets
    monkeypatch.setattr(embedder, "_windows_with_offsets", lambda text: ran.append(text) or windows(text))
    start = parse_time("2023-05-08T13:56:00Z")
    session = [(node, start) for node in TURNS]
    text_index.prepare(embedder, None, session, form=form)
    counted = [t for node, s in session for t in vector_forms.embedded_texts(node, s, form)]
    assert sorted(ran) == sorted(set(counted))
    if form == text_index.LATE_UNDATED:
        assert len(ran) == len(TURNS)  # one run per turn
