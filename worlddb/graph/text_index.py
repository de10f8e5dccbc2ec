"""What gets indexed, and the lexical lane over it.

Text nodes - Memory, Turn, Summary - are the units recall returns. Each is found by its
*index text*: "[<valid-from date>] <Speaker>: <text> [image: <caption>]" - the date,
speaker and shared image are part of what a memory is about, and questions name them.
The speaker is a Turn's, or what a Memory's metadata names as `speaker` (else `role`), so
a message written as a single memory is found the way the same turn ingested would be.
In the node's own write transaction it gets:
  - one FTS5 row of that text (BM25 lane);
  - a content embedding of its *vector text*, which is also its effective embedding
    (vector lane; for worlds the composer writes the effective one);
  - one *unit* embedding per sentence (and one for an image caption), each carrying
    the same date/speaker prefix (sentence lane: a long turn is found by its best
    sentence, not by the blur of all of them); a text of one unit has one vector;
  - +1 document frequency for each distinct wordpiece, which weights model-free query
    vectors (worlddb.vectors.static_query).

The whole-text vector is made from the index text without its date ("<Speaker>: <text>
[image: <caption>]"), and so is a one-sentence text's one vector, which serves as its
sentence vector too; the sentences of a longer text keep the date (form WHOLE_UNDATED).
The date is about 11 of the 30-odd tokens of a short text and the model's cost is per
token; the bm25 lane and the temporal rules read it from the index text. In the sentences
of a longer text it stays: a short fragment ("Wow!") whose vector is mostly the shared
prefix ranks low for any query, and without it such fragments crowded out the evidence
(docs/retrieval.md, "What is embedded"). Stores embedded before kept the date in every
embedded text (form DATED). A third form, LATE_UNDATED, runs the model once per text and
pools each sentence's vector from that run's token states instead of running the sentence
again (a third of the tokens); it ranked lower on the dev conversations and is not current
(docs/retrieval.md, "What is embedded"), but a store moved to it keeps it. A store
records its form in meta `vector_text` with its first text vector (schema migration 8
recorded DATED in every store that had one), keeps embedding that form, and is moved to the
current one only by re-embedding it (`worlddb reembed`). A transaction that would write
vectors of another form than the store's is refused with EmbeddingMismatch: forms never mix
in one store.

The first vector written fixes the database's model (meta `embed_model`/`embed_dim`);
every vector stored is of that model. Identical vectors of one node (a one-sentence text's
content, effective and sentence vector) are stored once (worlddb.core.schema, vector_data).
Opening it with a different embedder is refused with EmbeddingMismatch, unless the caller
asks to re-embed everything (`Engine(reembed=True)`). Vectors of two models are never mixed.

The lexical search over these FTS rows is worlddb.graph.lexical.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from worlddb.core.errors import Conflict
from worlddb.core.records import Node, NodeView
from worlddb.core.store import Store
from worlddb.core.timeutil import to_datetime
from worlddb.extract.builtin import split_sentences
from worlddb.protocols import Pool
from worlddb.vectors.embedder import embed_spans
from worlddb.vectors.hnsw import CONTENT, EFFECTIVE, UNIT

#: a word, as the lexical lane splits queries (worlddb.graph.lexical)
WORD = re.compile(r"\w+", re.UNICODE)
#: Words too common to help ranking; dropped from queries unless nothing else is left.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have
having he her here hers herself him himself his how i if in into is it its itself just me more most
my myself no nor not now of off on once only or other our ours ourselves out over own same she
should so some such than that the their theirs them themselves then there these they this those
through to too under until up very was we were what when where which while who whom why will with
would you your yours yourself yourselves did does ever also
""".split())


class EmbeddingMismatch(Conflict):
    """The database's vectors were made by another model than the configured embedder."""


#: meta key: the form of the texts the store's text vectors were made from
VECTOR_TEXT_KEY = "vector_text"
#: every vector made from "[<date>] Speaker: text": the form of stores embedded before
#: WHOLE_UNDATED
DATED = "dated"
#: whole texts (and a text of one sentence) embedded as "Speaker: text", the sentences of a
#: longer text as "[<date>] Speaker: sentence"
WHOLE_UNDATED = "whole-undated"
#: one model run per text over "Speaker: text [image: caption]": the whole-text vector pools
#: all its tokens (the vector WHOLE_UNDATED makes), each sentence's vector the tokens of the
#: sentence in that run, with the run's [CLS] and [SEP] (late chunking,
#: worlddb.protocols.SpanEmbedder). A write embeds about a third of the tokens, but recall
#: ranks lower on the dev conversations (docs/retrieval.md, "What is embedded"): a store
#: is moved to it only on purpose (`worlddb.graph.reembed.reembed(..., form=LATE_UNDATED)`)
LATE_UNDATED = "late-undated"
#: the form new stores are embedded in, and re-embedding moves a store to
CURRENT = WHOLE_UNDATED
FORMS = (DATED, WHOLE_UNDATED, LATE_UNDATED)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def render_date(us: int) -> str:
    """'1:56 pm on 8 May, 2023': how people write a moment in a conversation."""
    moment = to_datetime(us)
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {_MONTHS[moment.month - 1]}, {moment.year}"


def speaker_of(node: Node | NodeView) -> str | None:
    """Who said a text node's text: a Turn's speaker, or the `speaker` (else `role`) a
    memory's metadata names; None when it names none (or not as text)."""
    return speaker_named(node.type, node.meta)


def speaker_named(node_type: str, meta: Mapping[str, Any]) -> str | None:
    """`speaker_of` for a node of `node_type` with metadata `meta`, before it is built."""
    keys = ("speaker",) if node_type == "Turn" else ("speaker", "role") if node_type == "Memory" else ()
    for key in keys:
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def _prefix(node: Node | NodeView, valid_from: int, dated: bool = True) -> str:
    speaker = f"{speaker}: " if (speaker := speaker_of(node)) else ""
    return f"[{render_date(valid_from)}] {speaker}" if dated else speaker


def index_text(node: Node | NodeView, valid_from: int) -> str:
    """The text a node is found by (see the module docstring)."""
    return _with_content(node, _prefix(node, valid_from))


def vector_text(node: Node | NodeView, valid_from: int, form: str = CURRENT) -> str:
    """The text a node's whole-text vector is made from, in `form`: its index text, without
    the date unless `form` is DATED."""
    return _with_content(node, _prefix(node, valid_from, dated=form == DATED))


def _with_content(node: Node | NodeView, prefix: str) -> str:
    text = prefix + (node.content or "")
    caption = node.meta.get("caption")
    if caption:
        text += f" [image: {caption}]"
    return text


def unit_texts(node: Node | NodeView, valid_from: int, form: str = CURRENT) -> list[str]:
    """One text per sentence, and one for an attached image caption, each with the prefix;
    in WHOLE_UNDATED a text of one such unit has its vector text (`vector_text`) instead."""
    prefix = _prefix(node, valid_from)
    content = node.content or ""
    units = [prefix + content[a:b].strip() for a, b in split_sentences(content) if content[a:b].strip()]
    caption = node.meta.get("caption")
    if caption:
        units.append(f"{prefix}[image: {caption}]")
    if form == DATED:
        return units or [prefix + content]
    return units if len(units) > 1 else [vector_text(node, valid_from, form)]


@dataclass(frozen=True)
class Prepared:
    """Everything model-made for one text node, computed before the write lock is taken."""

    text: str
    vector: np.ndarray
    units: np.ndarray
    pieces: frozenset[int]
    #: the form of the texts the vectors were made from (one of FORMS)
    form: str = CURRENT


def prepare(embedder, encoder, nodes: Sequence[tuple[Node, int]], also: Sequence[str] = (),
            form: str = CURRENT) -> list[Prepared]:
    """Embed the vector texts (in `form`: the store's, `vector_form`) and sentence units of
    (node, valid_from) pairs in one batch. A node whose only unit is its whole text reuses
    that vector instead of embedding twice. `also`: more texts to embed in the same model
    call; their vectors are returned by `prepare_with`."""
    return prepare_with(embedder, encoder, nodes, also, form)[0]


def late_pools(node: Node | NodeView, valid_from: int) -> tuple[str, list[Pool]]:
    """LATE_UNDATED: the text one model run goes over (the vector text), and its pools: the
    whole text's first, then, for a text of more than one unit, one per sentence and one for
    an image caption."""
    prefix = _prefix(node, valid_from, dated=False)
    text = _with_content(node, prefix)  # vector_text(node, valid_from, LATE_UNDATED)
    content, body = node.content or "", len(prefix)
    units = [Pool(((body + a, body + b),)) for a, b in split_sentences(content) if content[a:b].strip()]
    if node.meta.get("caption"):
        units.append(Pool(((body + len(content), len(text)),)))
    whole = [Pool(((0, len(text)),))]
    return text, whole + units if len(units) > 1 else whole


def _prepare_late(embedder, nodes: Sequence[tuple[Node, int]],
                  also: list[str]) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[np.ndarray]]:
    runs = [late_pools(node, start) for node, start in nodes]
    texts = [text for text, _ in runs] + also
    pools = [group for _, group in runs] + [[Pool(((0, len(text)),))] for text in also]
    if not texts:
        return [], []
    vectors = embed_spans(embedder, texts, pools)
    return [(v[0], v[1:] if len(v) > 1 else v[:1]) for v in vectors[:len(runs)]], [v[0] for v in vectors[len(runs):]]


def prepare_with(embedder, encoder, nodes: Sequence[tuple[Node, int]], also: Sequence[str] = (),
                 form: str = CURRENT) -> tuple[list[Prepared], dict[str, np.ndarray]]:
    _check_form(form)
    if form == LATE_UNDATED:
        found = [index_text(node, start) for node, start in nodes]
        also = list(dict.fromkeys(also))
        made, extra = _prepare_late(embedder, nodes, also)
        prepared = [Prepared(text=text, vector=whole, units=units, form=form,
                             pieces=frozenset(encoder.doc_pieces([text])[0]) if encoder is not None else frozenset())
                    for text, (whole, units) in zip(found, made)]
        return prepared, dict(zip(also, extra))
    found = [index_text(node, start) for node, start in nodes]
    texts = [vector_text(node, start, form) for node, start in nodes]
    units = [unit_texts(node, start, form) for node, start in nodes]
    extra = [u for text, group in zip(texts, units) if group != [text] for u in group]
    also = list(dict.fromkeys(also))
    batch = texts + extra + also
    # the model's tokenizer is the word piece counts' (the static encoder's): the pieces of an
    # index text are those of its vector text, which the model has just split, and its date's
    embed_with_pieces = getattr(embedder, "embed_with_pieces", None)
    if encoder is None or embed_with_pieces is None or not batch or \
            getattr(embedder, "tokenizer_sha256", None) != getattr(encoder, "tokenizer_sha256", ""):
        embed_with_pieces = None
    if embed_with_pieces is not None:
        matrix, embedded = embed_with_pieces(batch)
    else:
        matrix, embedded = (embedder.embed(batch) if batch else np.zeros((0, embedder.dim), np.float32)), []
    others = {text: matrix[len(texts) + len(extra) + i] for i, text in enumerate(also)}
    out, cursor = [], len(texts)
    for i, (text, group) in enumerate(zip(found, units)):
        if group == [texts[i]]:
            unit_vectors = matrix[i:i + 1]
        else:
            unit_vectors = matrix[cursor:cursor + len(group)]
            cursor += len(group)
        pieces = _pieces(encoder, text, texts[i], embedded[i] if embedded else None)
        out.append(Prepared(text=text, vector=matrix[i], units=unit_vectors, pieces=pieces, form=form))
    return out, others


def _pieces(encoder, text: str, embedded: str, embedded_pieces: frozenset[int] | None) -> frozenset[int]:
    """The word pieces counted for index text `text` (StaticEncoder.doc_pieces), taken from the
    pieces of `embedded`, the vector text the model split, where `text` is it after a prefix
    ending in a space (its date), or it alone: StaticEncoder.doc_pieces_joined."""
    if encoder is None:
        return frozenset()
    head = text[:len(text) - len(embedded)]
    if embedded_pieces is None or not text.endswith(embedded) or (head and not head.endswith(" ")):
        return frozenset(encoder.doc_pieces([text])[0])
    return frozenset(encoder.doc_pieces_joined(head, embedded_pieces))


def vector_form(store: Store) -> str:
    """The form this store's text vectors are in: the recorded one, else (no text vector
    yet) CURRENT. Read when an engine opens; each write checks it again (`claim_form`)."""
    recorded = store.meta_get(VECTOR_TEXT_KEY)
    if recorded is None:
        return CURRENT
    _check_form(recorded)
    return recorded


def claim_form(w, form: str) -> None:
    """Inside a write: record `form` as the store's if it has none yet, or refuse it if the
    store's is another (another process re-embedded the store since this one read it)."""
    if w.vector_text == form:
        return
    row = w.tx.conn.execute("SELECT value FROM meta WHERE key=?", (VECTOR_TEXT_KEY,)).fetchone()
    if row is None:
        w.tx.set_meta(VECTOR_TEXT_KEY, form)
    elif row[0] != form:
        raise EmbeddingMismatch(
            f"this database's text vectors are of the {row[0]} form; refusing vectors of the {form} form "
            f"(it was re-embedded while this process had it open: open it again)")
    w.vector_text = form


def _check_form(form: str) -> None:
    if form not in FORMS:
        raise EmbeddingMismatch(f"this database's text vectors are of a form this WorldDB does not know "
                                f"({form!r}; known: {', '.join(FORMS)}); upgrade worlddb to open it")


def write_index(w, anchor: str, prepared: Prepared, model: str, dim: int) -> None:
    """FTS row, content/effective/unit vectors and document frequencies of one text node."""
    claim_form(w, prepared.form)
    w.index_text(anchor, prepared.text)
    blob = as_blob(prepared.vector)
    vectors = [(EFFECTIVE, 0, blob), (CONTENT, 0, blob)]  # effective first: see composer.on_vector
    vectors += [(UNIT, i, as_blob(unit)) for i, unit in enumerate(prepared.units)]
    w.put_vectors(anchor, model, dim, vectors)
    w.tx.count_text(prepared.pieces)


def document_frequencies(store: Store, pieces: Sequence[int]) -> tuple[dict[int, int], int]:
    """df of the given wordpieces and the number of text nodes, for query weighting."""
    if not pieces:
        return {}, 0
    rows = store.conn.execute(
        f"SELECT token, df FROM token_df WHERE token IN ({','.join('?' * len(pieces))})", list(pieces))
    n = int(store.meta_get("text_docs") or 0)
    return dict(rows), n


def check_model(store: Store, model_id: str, dim: int) -> None:
    """Refuse an embedder whose vectors would mix with another model's."""
    stored = store.meta_get("embed_model")
    if stored is None:
        return
    stored_dim = int(store.meta_get("embed_dim") or 0)
    if stored != model_id or stored_dim != dim:
        raise EmbeddingMismatch(
            f"this database was embedded with {stored} ({stored_dim} dims); the configured embedder is "
            f"{model_id} ({dim} dims). Open it with the same model, or re-embed it on purpose "
            f"(worlddb reembed) - vectors of two models are never mixed"
        )


def recorded_model(store: Store) -> str | None:
    """The model this database was first embedded with (None: nothing embedded yet)."""
    return store.meta_get("embed_model")


def as_blob(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float32).tobytes()
