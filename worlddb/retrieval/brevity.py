"""Turns that state little weigh less in recall: priors on a turn's length and on what it asks.

    S(d) <- S(d) * min(1, words(d) / SHORT_TURN_WORDS)    for a Turn node d
    S(d) unchanged                                         for any other node, and for a
                                                           turn that replies to a question
    S(d) <- S(d) * (1 - QUESTION_DAMPING * asked(d))       for a Turn node d, where asked(d)
                                                           is the share of its words that are
                                                           in questions

applied to the fused scores (worlddb.retrieval.fusion) before the graph step
(worlddb.retrieval.propagation): the first in full, so a short turn also lifts its neighbours
less; the second only to what a turn keeps of its own score there (O in propagation), so a
question that matches still lifts the turns that answer it by its whole score. words(d) counts
the words (graph.text_index.WORD) of the turn's index text after its date - its speaker, its
text and its image caption: what the turn is found by - read from the fts row,
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

A question asks for a fact and does not state one. In a conversation the other speaker's
questions name what a person does ("Any projects or activities you're looking forward to?"),
so they match a question about it word for word, and take the places of the turns that answer;
the answer is in the turn after it, which the graph step lifts. So a turn keeps 1 -
QUESTION_DAMPING times the share of its words that are in sentences ending with a question
mark ("?", "?!"; sentences as worlddb.extract.builtin.split_sentences cuts its text, without
speaker and image caption): "That's great! What did you paint?" loses less than "What did you
paint?", and a turn that only asks keeps nothing of its own (QUESTION_DAMPING = 1): it is
found through the turns around it, or not at all. On LoCoMo dev, 4.7 % of the evidence turns' words are in questions,
against 13.9 % of the words of the other turns recall returned in its top 50. The value, and
lowering the turn's own score only (not what it lifts its neighbours by), were chosen by
leave-one-conversation-out, in four folds of five (docs/retrieval.md, "A seventh study").

Only Turn nodes are damped: a memory is a statement its writer chose to keep ("Ann moved to
Lisbon" is a whole fact in four words), and a summary is never a result. The factor only
lowers scores, and a turn of SHORT_TURN_WORDS words or more keeps its score. Turns are told
by their type in the nodes table and only their fts rows are read (and the records of the
turns before the short ones), so a store of memories pays one indexed query per recall.
"""

from __future__ import annotations

import re
from functools import lru_cache

from worlddb.core.store import Store
from worlddb.extract.builtin import split_sentences
from worlddb.extract.slots import read
from worlddb.graph.text_index import WORD

#: the "[<date>] " an index text opens with, and the "<speaker>: " after it (worlddb.graph.text_index)
_DATE = re.compile(r"^\[[^\]]*\] ")
_SPEAKER = re.compile(r"^[^:\n]{1,80}:\s")
#: the " [image: <caption>]" an index text closes with when the turn has an image
_CAPTION = re.compile(r" \[image: .*\]\Z", re.S)
#: runs of closing marks: a sentence asks when its last run holds a question mark ("?", "?!")
_MARKS = re.compile(r"[.!?]+")

#: a turn of fewer words than this keeps that share of its fused score; 0 turns the prior off
SHORT_TURN_WORDS = 12
#: a turn loses this much of its fused score times the share of its words in questions; 0 turns it off
QUESTION_DAMPING = 1.0


def damp_turns(store: Store, scores: dict[int, float]) -> tuple[dict[int, float], dict[int, float]]:
    """(S, O) for `scores` (node rowid -> fused score): S scales each Turn node's score by
    min(1, its words / SHORT_TURN_WORDS), unless it replies to a question or states a slot's
    value - what it lifts its neighbours by in the graph step; O scales S by 1 -
    QUESTION_DAMPING * the share of its words in questions - what it keeps of its own score.
    Other nodes' scores as they were in both."""
    short, asking = SHORT_TURN_WORDS, QUESTION_DAMPING
    if (short <= 0 and asking <= 0) or not scores:
        return scores, scores
    texts = turn_texts(store, list(scores))
    out = dict(scores)
    if short > 0:
        words = {rowid: len(WORD.findall(text)) for rowid, text in texts.items()}
        brief = [rowid for rowid, n in words.items() if n < short and not states_a_value(texts[rowid])]
        answering = replies_to_questions(store, brief) if brief else set()
        for rowid in brief:
            if rowid not in answering:
                out[rowid] = scores[rowid] * words[rowid] / short
    if asking <= 0:
        return out, out
    own = dict(out)
    for rowid, text in texts.items():
        share = asked_share(text)
        if share:
            own[rowid] = out[rowid] * (1 - asking * share)
    return out, own


@lru_cache(maxsize=8192)
def asked_share(text: str) -> float:
    """The share of the words of a turn's index text (after the date: "Speaker: text [image:
    caption]") that are in its questions - sentences whose last run of closing marks holds a
    "?" - counted over its text alone, without speaker and caption; 0.0 for a text without
    words. The last 8,192 texts' shares are kept: recall asks for every Turn among its
    candidates (some 130 of a dev question's 445 hold a "?", about 15 us each to read), and
    the same turns come back query after query."""
    if "?" not in text:
        return 0.0
    content = _CAPTION.sub("", _SPEAKER.sub("", text, count=1))
    total = asked = 0
    for start, end in split_sentences(content):
        sentence = content[start:end]
        words = len(WORD.findall(sentence))
        marks = _MARKS.findall(sentence)
        total += words
        if marks and "?" in marks[-1]:
            asked += words
    return asked / total if total else 0.0


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
