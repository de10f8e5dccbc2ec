"""Name keys of the resolver: normalisation, trigrams, the phonetic key and the two similarities.

Contracts
- `normalize_name(text)` is the exact-match key: control and format characters removed
  (whitespace controls become spaces), Unicode NFKC, case-folded, NFKC again, runs of
  whitespace collapsed to one space, trimmed, cut to MAX_NAME_LEN characters. It is
  idempotent: normalize_name(normalize_name(x)) == normalize_name(x).
- `trigrams(norm)` are the character trigrams of a normalised name padded with a start and
  an end marker (control characters, which normalisation removes, so they never clash
  with name text); "sara" -> {"\\x02sa", "sar", "ara", "ra\\x03"}. Padding gives names of
  one or two characters a trigram too, and the markers make prefixes and suffixes count.
- `phonetic_key(text)` is a Soundex-style key, one code per word, joined by spaces:
    1. the word is folded to ASCII letters (accents dropped; other scripts give no key),
    2. rewrites: PH -> F and CK -> K anywhere; KN -> N and WR -> R at the start of a word
       (silent K/W only begin English words; "Hackney" must not lose its N),
    3. the first letter is kept, every later consonant becomes its Soundex digit
       (BFPV 1, CGJKQSXZ 2, DT 3, L 4, MN 5, R 6); vowels (AEIOUY) are dropped but
       separate equal digits, H and W are dropped and do not; equal adjacent digits
       (also the first letter's own digit) collapse into one,
    4. no truncation or zero padding: long names keep all their sounds, so that a large
       scope does not pile thousands of names onto one four-character key.
  "Phillip" and "Filip" both give "F41"; "Stephen" and "Steven" "S315"; "Anna" "A5" but
  "Hanna" "H5".
- `phonetic_similarity(a, b)` scores two names that share a key: Jaro-Winkler over their
  *sound spellings* - the rewritten words with consonants replaced by their digits, vowels
  kept (Y as I), H and W dropped and repeats collapsed. The key drops vowels to find
  candidates; the score puts them back, so "Jon"/"Joan" (same key J5, spellings "jo5" and
  "joa5", 0.933) stay apart while "Jon"/"John" ("jo5" both, 1.0) match.
- `name_similarity(a, b)` is Jaro-Winkler (jellyfish) over normalised names.
- `name_parts(norm)` are the proper leading and trailing word runs of a normalised name
  of two or more words: "ana maria souza" -> "ana", "ana maria", "souza", "maria souza".
  `part_score(part, norm)` is the share of the name's words the part has (0.5 for "ana"
  of "ana souza").
"""

from __future__ import annotations

import re
import unicodedata

import jellyfish

from worlddb.core.errors import InvalidInput

#: Normalised names are cut to this many characters: a longer "name" is text, not a name,
#: and bounding it bounds the trigram and comparison work per name.
MAX_NAME_LEN = 128

START, END = "\x02", "\x03"
_STRIP = frozenset(("Cc", "Cf", "Cs", "Co"))
_CODES = {
    **dict.fromkeys("bfpv", "1"),
    **dict.fromkeys("cgjkqsxz", "2"),
    **dict.fromkeys("dt", "3"),
    "l": "4",
    **dict.fromkeys("mn", "5"),
    "r": "6",
}
_VOWELS = frozenset("aeiouy")
_WORD = re.compile(r"[a-z]+")


def normalize_name(text: str) -> str:
    """The exact-match form of a name or alias (see the module contract)."""
    if not isinstance(text, str):
        raise InvalidInput(f"a name must be a string, got {type(text).__name__}")
    if text.isascii() and text.isprintable():
        # The common case, and a fixpoint of the general path: ASCII case-folds to lower().
        return " ".join(text.lower().split())[:MAX_NAME_LEN].rstrip()
    out = text
    for _ in range(4):  # NFKC and case folding can expose further work; stop at the fixpoint
        again = _normalize_once(out)
        if again == out:
            break
        out = again
    return out


def _normalize_once(text: str) -> str:
    kept = "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in _STRIP
    )
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", kept).casefold())
    return " ".join(folded.split())[:MAX_NAME_LEN].rstrip()


def trigrams(norm: str) -> set[str]:
    """The padded character trigrams of a normalised name."""
    padded = f"{START}{norm}{END}"
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def _ascii_words(text: str) -> list[str]:
    decomposed = unicodedata.normalize("NFKD", normalize_name(text))
    letters = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return [_rewrite(word) for word in _WORD.findall(letters)]


def _rewrite(word: str) -> str:
    if word.startswith(("kn", "wr")) and len(word) > 2:
        word = word[1:]
    return word.replace("ph", "f").replace("ck", "k")


def _code(word: str) -> str:
    out = [word[0].upper()]
    last = _CODES.get(word[0], "")
    for ch in word[1:]:
        digit = _CODES.get(ch)
        if digit is None:
            if ch in _VOWELS:
                last = ""  # a vowel separates two equal digits ("Tymczak" keeps both 2s)
            continue  # H and W are silent and do not separate
        if digit != last:
            out.append(digit)
        last = digit
    return "".join(out)


def _sound(word: str) -> str:
    out = [word[0]]
    for ch in word[1:]:
        if ch in "hw":
            continue
        symbol = _CODES.get(ch) or ("i" if ch == "y" else ch)
        if symbol != out[-1]:
            out.append(symbol)
    return "".join(out)


def phonetic_key(text: str) -> str:
    """The Soundex-style key of a name; "" when it has no Latin letters."""
    return " ".join(_code(word) for word in _ascii_words(text))


def sound_spelling(text: str) -> str:
    """What `phonetic_similarity` compares: rewritten words, consonants as digits, vowels kept."""
    return " ".join(_sound(word) for word in _ascii_words(text))


def phonetic_similarity(a: str, b: str) -> float:
    """Jaro-Winkler over the sound spellings of two names (1.0 = they sound the same)."""
    sa, sb = sound_spelling(a), sound_spelling(b)
    if not sa or not sb:
        return 0.0
    return jellyfish.jaro_winkler_similarity(sa, sb)


def name_similarity(a: str, b: str) -> float:
    """Jaro-Winkler over two normalised names."""
    return jellyfish.jaro_winkler_similarity(a, b)


def name_parts(norm: str) -> list[str]:
    """The proper leading and trailing word runs of a normalised name (see the contract)."""
    words = norm.split(" ")
    if len(words) < 2:
        return []
    runs = [" ".join(words[:i]) for i in range(1, len(words))] + [" ".join(words[i:]) for i in range(1, len(words))]
    return list(dict.fromkeys(runs))


def part_score(part: str, norm: str) -> float:
    """The share of `norm`'s words that `part` has."""
    return round(len(part.split(" ")) / len(norm.split(" ")), 6)
