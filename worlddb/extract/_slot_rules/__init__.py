"""The slot reader's rule table: one pattern to a way of saying a slot's value.

    _base.py        _Rule, _rx (compiled on first use), and the pieces and checks several families share
    home.py         where someone lives; whether a move is to a new home (moved_home, _place_in)
    work.py         employer, role or title, manager, the team one works in, a coworker (_occupation, _LEAVE)
    people.py       partner and marital status, pets and the names of pets and people, children
    health.py       diet, drink, smoking, allergies, medications and their doses
    contact.py      phone numbers, email addresses, street addresses
    things.py       car, phone, commute and weight; carers and providers, banks, schools
    favourites.py   favourites and usual orders, languages, pastimes
    schedule.py     how often, bedtime and waketime, when a thing is, what is due, what is called off
    amounts.py      sums of money (_SUMS), counts, ages
    goals.py        goals, and what one or a group of one's is reading

Contract: ``_RULES`` is a tuple of ``_Rule``s, each an attribute of the catalogue
(worlddb.extract._slot_catalogue) and a compiled pattern whose group ``v`` is the value, ``s``
(when present) the subject right before the verb, ``t`` a named thing, ``q`` a qualifier and
``r`` a role the value must be an occupation for, ``o`` another value the same check must pass
(the other place of "moved from Chicago to Denver"), with a check on the two together (``pair``). A rule also says whether its claim is
negated or ended, a check on the value (``accept``: ``_place``, ``_org``, ``_occupation``, ...),
a pattern the whole text must hold (``context``) or must not (``unless``), and whether the
subject is fixed (``thing``, ``speaker``). Rules read patterns and lexicons
(worlddb.extract._slot_words), never particular sentences, and a rule that is unsure reads
nothing. The table is data plus the pure checks it names: matching, subjects and irrealis are
worlddb.extract._slot_reader's, and which rules can match a text is
worlddb.extract._slot_prefilter's. Order matters: claims come in clause, then rule order.
``_RULES`` joins the families' tuples in the table's order, which is not one family after
another: a family's tuples stand where the table has them (the team after the pets, children last).
"""

from __future__ import annotations

from . import amounts, contact, favourites, goals, health, home, people, schedule, things, work
from ._base import _Rule
from .amounts import _SUMS
from .home import _place_in, moved_home
from .schedule import _PASTIME_VERBS, _gerund
from .work import _LEAVE, _occupation

__all__ = ["_LEAVE", "_PASTIME_VERBS", "_RULES", "_SUMS", "_Rule", "_gerund", "_occupation", "_place_in", "moved_home"]

_RULES: tuple[_Rule, ...] = (
    *home.HOME,
    *work.JOB,
    *people.PARTNER,
    *health.HEALTH,
    *contact.CONTACT,
    *things.THINGS,
    *people.PETS,
    *work.TEAM,
    *favourites.FAVOURITES,
    *schedule.SCHEDULE,
    *amounts.AMOUNTS,
    *goals.GOALS,
    *people.CHILDREN,
)
