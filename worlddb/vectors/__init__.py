"""Vectors: embedding texts, indexing the vectors, and composing worlds from their children.

    embedder.py         MiniLMEmbedder (int8 ONNX, run locally) and HashEmbedder
    hnsw.py             the in-memory HNSW indexes over the vectors table, kept current from SQL
    hnsw_snapshots.py   HNSW indexes saved beside the file, checked before they are trusted
    pooling.py          mean and attention pooling of child vectors
    composer.py         keeps every world's effective vector composed from its children's
    static_query.py     model-free query vectors from a shipped wordpiece table
"""
