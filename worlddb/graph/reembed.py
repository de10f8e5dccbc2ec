"""Re-embed a whole database with another model (or its texts in the current form), on
request, in one transaction.

Vectors of two models are never mixed: opening a database with an embedder other than
the one it was embedded with is refused (text_index.EmbeddingMismatch). This is the
explicit way across: every stored vector is recomputed with the new embedder - text
nodes (content, effective, sentence units), entity names, world contents - composed
world embeddings are rebuilt from their children, and the database's model and text form
(text_index.vector_form) are switched, all in one transaction, so a crash leaves the old
vectors intact. The same path moves a store whose text vectors are of an older form (the
date in every embedded text) to the current one, with the same model.

    worlddb reembed --db memory.db          # with the default embedder
"""

from __future__ import annotations

from worlddb.core.records import TEXT_TYPES, NodeView
from worlddb.core.store import Store
from worlddb.graph import text_index
from worlddb.graph.database import WorldDB
from worlddb.protocols import Embedder
from worlddb.vectors import hnsw, hnsw_snapshots
from worlddb.vectors.composer import Composer
from worlddb.vectors.static_query import StaticEncoder

BATCH = 256


def reembed(db: WorldDB, embedder: Embedder, encoder: StaticEncoder | None = None,
            form: str = text_index.CURRENT) -> dict[str, int]:
    """Recompute every vector with `embedder`, text vectors from texts of `form` (by default
    the current one); returns counts per kind."""
    store = db.store
    texts = _views(db, f"type IN ({','.join('?' * len(TEXT_TYPES))})", TEXT_TYPES)
    names = _views(db, "type='Entity'", ())
    worlds = [v for v in _views(db, "n_children > 0 AND type != 'Scope'", ()) if v.content]
    model, dim = embedder.model_id, embedder.dim
    counts = {"texts": 0, "names": 0, "worlds": 0}
    with db.write("reembed") as w:
        conn = w.tx.conn
        conn.execute("DELETE FROM vectors")
        conn.execute("DELETE FROM vector_data")
        # the new rows reuse the old labels (vectors.id): no snapshot may stand for them
        hnsw_snapshots.discard(db.ann_snapshots)
        conn.execute("DELETE FROM compose")
        conn.execute("DELETE FROM token_df")
        conn.execute("DELETE FROM meta WHERE key IN ('embed_model', 'embed_dim', 'text_docs', ?)",
                     (text_index.VECTOR_TEXT_KEY,))
        observers, store.observers = store.observers, []  # compose once at the end, not per vector
        try:
            for start in range(0, len(texts), BATCH):
                chunk = texts[start:start + BATCH]
                prepared = text_index.prepare(embedder, encoder, [(v, v.valid_from) for v in chunk], form=form)
                for view, item in zip(chunk, prepared):
                    text_index.write_index(w, view.anchor, item, model, dim)
                counts["texts"] += len(chunk)
            for start in range(0, len(names), BATCH):
                chunk = names[start:start + BATCH]
                for view, vec in zip(chunk, embedder.embed([v.name for v in chunk])):
                    w.put_vector(view.anchor, hnsw.NAME, model, text_index.as_blob(vec), dim)
                counts["names"] += len(chunk)
            if worlds:
                for view, vec in zip(worlds, embedder.embed([v.content for v in worlds])):
                    w.put_vector(view.anchor, hnsw.CONTENT, model, text_index.as_blob(vec), dim)
                counts["worlds"] = len(worlds)
        finally:
            store.observers = observers
        composer = next((o for o in observers if isinstance(o, Composer)), Composer())
        for anchor in _deepest_first(db):
            composer.recompose(w.tx, anchor)
    return counts


def _views(db: WorldDB, where: str, params) -> list[NodeView]:
    anchors = [r[0] for r in db.store.conn.execute(f"SELECT anchor FROM nodes WHERE {where} ORDER BY rowid",
                                                   tuple(params))]
    views = db.store.get_many(anchors)
    return [views[a] for a in anchors if not views[a].erased]


def _deepest_first(db: WorldDB) -> list[str]:
    rows = db.store.conn.execute(
        "SELECT n.anchor, (SELECT count(*) FROM closure c WHERE c.node = n.rowid) AS depth "
        "FROM nodes n WHERE n.n_children > 0 AND n.type != 'Scope' ORDER BY depth DESC, n.rowid")
    return [row[0] for row in rows]



def stored_vectors(store: Store) -> int:
    """How many vectors the file holds (erased ones not counted)."""
    return store.conn.execute("SELECT count(*) FROM vectors WHERE data IS NOT NULL").fetchone()[0]
