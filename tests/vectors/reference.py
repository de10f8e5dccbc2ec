"""The texts behind tests/vectors/data/minilm-reference.npy: vectors the default embedder
made before its batching changed, which it must still reproduce (cosine >= 0.9999).

The sample is what a write embeds: the index text of 64 hand-annotated LoCoMo dev turns
(bench/data/entity_gold.json, with the speaker and date prefix of worlddb.graph.text_index),
the sentence units of the first 16, the entity names they mention, and three long texts
past the model's 256-token window. `python -m tests.vectors.reference` rewrote the file;
run it again only on purpose (it records whatever the current code makes).
`python -m tests.vectors.reference --canary` records the embedder's canary vectors (the fp32
graph's vectors of `CANARY_TEXTS`, which the integer graph must reproduce before it is used).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT / "bench" / "data" / "entity_gold.json"
VECTORS = Path(__file__).parent / "data" / "minilm-reference.npy"
PREFIX = "[1:56 pm on 8 May, 2023] "


def reference_texts() -> list[str]:
    turns = json.loads(GOLD.read_text())["turns"][:64]
    texts = [f"{PREFIX}{t['speaker']}: {t['text']}" for t in turns]
    for t in turns[:16]:
        texts += [f"{PREFIX}{t['speaker']}: {s.strip()}." for s in t["text"].split(".") if s.strip()]
    texts += sorted({m.lower() for t in turns for m in t["mentions"]} | {t["speaker"].lower() for t in turns})
    for start in (0, 20, 40):
        texts.append(" ".join(t["text"] for t in turns[start:start + 20]))
    return texts


def main() -> None:
    from worlddb.vectors.embedder import MiniLMEmbedder

    vectors = MiniLMEmbedder().embed(reference_texts())
    np.save(VECTORS, vectors.astype(np.float16))
    print(f"{VECTORS}: {vectors.shape}")


def canary() -> None:
    """Record worlddb/vectors/data/minilm-canary.npy: the fp32 graph's vectors of CANARY_TEXTS."""
    from worlddb.vectors.embedder import CANARY_PATH, CANARY_TEXTS, MiniLMEmbedder

    vectors = MiniLMEmbedder(arithmetic="fp32").embed(list(CANARY_TEXTS))
    np.save(CANARY_PATH, vectors.astype(np.float32))
    print(f"{CANARY_PATH}: {vectors.shape}")


if __name__ == "__main__":
    import sys

    canary() if "--canary" in sys.argv[1:] else main()

