"""A short conversational turn weighs less in recall: a prior on a turn's length.

    S(d) <- S(d) * min(1, words(d) / SHORT_TURN_WORDS)    for a Turn node d
    S(d) unchanged                                         for any other node, and for a
                                                           turn that replies to a question

applied to the fused scores (worlddb.retrieval.fusion) before the graph step
(worlddb.retrieval.propagation), so a short turn also lifts its neighbours less. words(d)
counts the words (graph.text_index.WORD) of the turn's index text after its date - its
speaker, its text and its image caption: what the turn is found by - read from the fts row,
the one row per text node both backends keep (decoding every candidate's record instead
added 12 ms to recall's median on the dev conversations; this adds about 2.4).

Why: in a conversation the short turns are mostly replies that carry no fact of their own
("Thanks, Mel!", "Go get 'em, Jon!", "Wow, that's awesome!"). They match a question through
the name it asks about (the other speaker says it to address them) or a word of praise, and
each of the lanes ranks them on its own terms, so they take places in the top results that
the turns stating what was asked need. On LoCoMo dev, 3 % of the evidence turns have fewer
than 12 words, and 15 % of the turns recall returned in its top 50 besides the evidence did
(docs/retrieval.md, "A fourth study"). SHORT_TURN_WORDS = 12 (and the linear factor) was
chosen there by leave-one-conversation-out, in all five folds.

A turn that follows a question (its predecessor by precedes, in its session, ends with "?")
keeps its score whatever its length: "Biscuit." after "Name?" is the answer, and short
answers are where short turns carry a fact. On the dev conversations this changes nothing
at 12 words: their answers are seldom that short. So does a turn that states the value of a
slot (worlddb.extract.slots reads a claim in it): "I moved to Bergen!", "My name is Cara.",
"I'm vegan now" are facts in a few words, the kind an agent's own conversations are full of.

Only Turn nodes are damped: a memory is a statement its writer chose to keep ("Ann moved to
Lisbon" is a whole fact in four words), and a summary is never a result. The factor only
lowers scores, and a turn of SHORT_TURN_WORDS words or more keeps its score. Turns are told
by their type in the nodes table and only their fts rows are read (and the records of the
turns before the short ones), so a store of memories pays one indexed query per recall.
"""

from __future__ import annotations

import re

from worlddb.core.store import Store
from worlddb.extract.slots import read
from worlddb.graph.text_index import WORD

#: the "[<date>] " an index text opens with, and the "<speaker>: " after it (worlddb.graph.text_index)
_DATE = re.compile(r"^\[[^\]]*\] ")
_SPEAKER = re.compile(r"^[^:\n]{1,80}:\s")

#: a turn of fewer words than this keeps that share of its fused score; 0 turns the prior off
SHORT_TURN_WORDS = 12


def damp_short_turns(store: Store, scores: dict[int, float]) -> dict[int, float]:
    """`scores` (node rowid -> fused score) with each Turn node's score scaled by
    min(1, its words / SHORT_TURN_WORDS), unless it replies to a question or states a slot's
    value; other nodes' scores as they were."""
    short = SHORT_TURN_WORDS
    if short <= 0 or not scores:
        return scores
    texts = turn_texts(store, list(scores))
    words = {rowid: len(WORD.findall(text)) for rowid, text in texts.items()}
    brief = [rowid for rowid, n in words.items() if n < short and not states_a_value(texts[rowid])]
    if not brief:
        return scores
    out = dict(scores)
    answering = replies_to_questions(store, brief)
    for rowid in brief:
        if rowid not in answering:
            out[rowid] = scores[rowid] * words[rowid] / short
    return out


def states_a_value(text: str) -> bool:
    """Whether a turn's index text (after the date) states a slot's value, read without its
    speaker: "Cara: I moved to Bergen!" does."""
    return bool(read(_SPEAKER.sub("", text, count=1)).claims)


def turn_words(store: Store, rowids: list[int]) -> dict[int, int]:
    """rowid -> the words of its index text after the date, for those of `rowids` that are
    Turn nodes: what the turn is found by - its speaker, its text, its image caption."""
    return {rowid: len(WORD.findall(text)) for rowid, text in turn_texts(store, rowids).items()}


def turn_texts(store: Store, rowids: list[int]) -> dict[int, str]:
    """rowid -> its index text after the date, for those of `rowids` that are Turn nodes."""
    out: dict[int, str] = {}
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        rows = store.conn.execute(
            f"SELECT n.rowid, f.text FROM nodes n JOIN fts f ON f.rowid = n.rowid "
            f"WHERE n.rowid IN ({','.join('?' * len(chunk))}) AND (n.type || '') = 'Turn'", chunk)
        out.update((rowid, _DATE.sub("", text, count=1)) for rowid, text in rows)
    return out


def replies_to_questions(store: Store, rowids: list[int]) -> set[int]:
    """Those of `rowids` whose predecessor by a live precedes edge ends with a question mark."""
    before: dict[int, int] = {}
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        before.update((dst, src) for src, dst in store.conn.execute(
            f"SELECT src, dst FROM edges WHERE dst IN ({','.join('?' * len(chunk))}) AND type='precedes' "
            "AND seq_removed IS NULL", chunk))
    if not before:
        return set()
    anchors = store.anchors_for_rowids(list(set(before.values())))
    views = store.get_many(anchors.values())
    asked = {rowid for rowid, anchor in anchors.items()
             if anchor in views and (views[anchor].content or "").rstrip().endswith("?")}
    return {rowid for rowid, previous in before.items() if previous in asked}
