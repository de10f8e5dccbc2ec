"""The slot reader's literal prefilter is exact: a rule or cue it leaves out could not have
matched, so every reading equals the one of running every pattern on every clause.

The texts: phrasings written for this test (every rule matches at least one of them, and some
carry the non-ASCII characters that match ASCII letters case-insensitively), and the dev
corpora (LoCoMo turns, the statements of the update cases) when /work/shared/data (or
$WORLDDB_DEV_DATA) holds them."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from worlddb.extract import _slot_cues, _slot_prefilter, _slot_reader, _slot_rules, _slot_values, slots
from worlddb.extract.literals import fold

CRAFTED = [
    "User moved from Chicago to Denver. My sister relocated from Oslo to Bergen. My boss at Acme Corp is Lena Park.",
    "We called off the book club meeting. I cancelled my dentist appointment for Tuesday. They scrapped the offsite.",
    "I had to cancel my dentist appointment. Cancel the gym class, I'll go Friday. The marathon is off for now.",
    "We moved to Buildkite for CI. I moved to Cursor last month. I moved to Lagos.",
    "I moved to Marfa, into a little house. I relocated to Bexley.",
    "I work at Acme as a product manager. My sister started at Stripe as a support engineer.",
    "We moved off Heroku in favour of Fly.io. Ripped GORM out in favour of sqlc. I swapped Notion for Obsidian.",
    "I take an albuterol inhaler. I take Symbicort for my asthma. User no longer uses the inhaler.",
    "I quit using warfarin. The dentist appointment on Friday is cancelled.",
    "Our book club is now reading Klara and the Sun.",
    "I stopped taking Symbicort. I work remotely for Brightline.",
    "I have two dogs, Rex and Fido. We have three cats: Luna, Milo and Tom. I know someone who works at Google.",
    "The user moved to Denver. I start at Stripe on Monday. We're moving to Austin on the 15th of June.",
    "I switched jobs, I'm at Meta now. My sister changed jobs and she's at Google now. I'm at Costco now.",
    "My sister-in-law Maria lives in Denver. My stepbrother Tom works at Acme. My half-sister Ana is 12.",
    "I was a nurse before the kids. My sister was an engineer at Boeing. I was promoted to charge nurse.",
    "I have a dog named Rex and a cat named Tom. We adopted a puppy and a kitten called Luna.",
    "I switched jobs to Globex last spring. My brother changed jobs to Acme Corp.",
    "I go bouldering on Sundays. I joined a running club that meets Saturday mornings.",
    "I moved to New York. Living in Austin now, remember? I moved from Vim to Neovim.",
    "User and his wife moved to Ohio. Me and my husband live in Leeds. Tom and his wife moved to New Haven.",
    "I'm in the risk team at KPMG. I joined a small fintech called Brightpath. I'm on a Pixel 6a at the moment.",
    "Swapped the Galaxy for a Fairphone 4. I swapped my old Galaxy for an iPhone. Sam is on the data team at the BBC.",
    "We moved to Vue for the frontend. We moved to Boston for the new app job. Tom moved to Jenkins for builds.",
    "Our CTO is Dana Lee. Priya Nair has taken over as tech lead. Mira Patel replaced Tom Okafor as our PM.",
    "New email: ana.k@globex.com. Switched to a Mac last month. I switched from a PC to a Mac.",
    "I'm in Berlin now, moved last spring. I just started a new job as a paramedic. My cat allergy is gone.",
    "Standup is at 10 now. My allergy is to penicillin.",
    "I stopped seeing Dr. Kim. Got a raise to $105k. The team's grown to 15 engineers. Dad retired from Ford.",
    "Tom and Ana moved to Lisbon. Jon and I work at Acme.",
    "I sleep around 11pm. I've been going to bed at 10 lately. I've upped my morning run to 8k.",
    "We moved to Linear. I never left Google. I stopped by Sam's place. I moved to NYC. I left early.",
    "Alba started at Northgate Secondary. Alba moved up to Kings Grammar. I started at Westbrook High as a teacher.",
    "Jonas Weber took over as team lead. The team lead is Marta Kowalski. Jonas is our new team lead.",
    "I swim at the Leisure Centre on Mondays. Swimming's moved to Tuesdays. We climb every Friday.",
    "I'm paying £1,150 a month in rent. Landlord's put the rent up to £1,240.",
    "We moved to Grafana Cloud for monitoring. I've accepted an offer from Quillon, starting in January.",
    "My levothyroxine went up to 75mcg. Dad moved in with us on Saturday.",
    "We open at 7am on weekdays. The shop closes at 6pm.",
    "I'm learning Arabic on Tuesdays. Idris qualified as a nurse. We bought a semi in Rotherham.",
    "We switched broadband to Hyperoptic, BT was too slow.",
    "We changed paediatricians; Leo sees Dr. Brennan now. I switched dentists. I've changed banks.",
    "Dr. Fiona Kerr supervises me now. Dana manages us. Our energy supplier is Octopus. I do my long run on Sundays.",
    "We moved Bramble to a vet closer to home, Meadow Vets. I moved to a new GP, Dr. Patel.",
    "My running shoes are Nike Pegasus. My parents are Tom and Ann.",
    "We registered with the Elm Grove practice. My GP surgery is Riverside Medical Centre.",
    # where someone lives, works, their role
    "I live in Lisbon now, and our first winter in Lisbon was mild.",
    "My hometown is Galway. We're moving to 42 Harbour Road next month.",
    "Got a new phone number: 503-555-0777. I've got a new cell: 503 555 0123",
    "Bought a new condo in Tallinn after the move.",
    "Priya moved to Umbrella Corp. Tom jumped to Acme Labs.",
    "Jen's flight is on June 3. Sam's dentist appointment moved to the 10th of June.",
    "Sam's birthday is on the 14th of March.",
    "I started metformin 500mg twice daily. My lisinopril dose was increased to 20 mg. I'm on 20mg of lisinopril.",
    "My doctor bumped my Lexapro to 30mg. Rent went up to $2,350 this month.",
    "Got a raise, I make $110k now. I make $50 in tips on Fridays.",
    "I'm a junior at UCLA. I graduated from UCLA in June. I switched banks and opened a savings account at Ally.",
    "I'm Sam, I work as a nurse at Mercy Hospital in Tulsa.",
    "I drive a Civic. My Honda Civic is in the shop.",
    "I drive a Tesla now. My phone is an iPhone 12, and my new phone is a Pixel 8 now.",
    "Priya's new job is at Intuit. My brother's new job is at Airbus.",
    "I have yoga every Monday at 6pm. We have choir practice on Wednesdays. Pilates moved to Thursdays.",
    "I have a dentist appointment on Monday at 2pm. We've got a vet appointment Friday at 10am. Cancel the trip?",
    "I go climbing on Tuesdays. Climbing moved to Mondays. Biscuit's new vet is Dr. Ortiz. Dad isn't vegan or keto.",
    "My marathon is on April 20. Dana Reyes is on antibiotics. I'm off April 3 through April 10.",
    "The book club meets on the first Friday of the month; it now meets on the second Saturday.",
    "I live in a flat on Elm Street in Portland. We moved to a house on Oak Avenue in Beaverton.",
    "Lunch with Tobias, my new manager, went well. Felix, my boyfriend, cooked. Dr. Okafor is my GP now.",
    "Dropped my daughter off at Cedar Hill School. Day two at Plaid and my laptop still isn't set up.",
    "I'm on the payments team. Our team is Core Platform. I left the infra team.",
    "I take vitamin D 2000 IU every morning. My birthday is on the 14th of March.",
    "I'm in Leeds, renting a two-bed. What I'm actually allergic to is penicillin.",
    "I work at a small bakery; I started my first week at Fernhill Labs on Monday.",
    "Priya's first month with Orbital went well. Her new employer is Kestrel Systems.",
    "My new job at Stripe starts soon.",
    "Tom quit Hartley Bakery and started at Page One Books; I started my own shop not so long ago.",
    "My sister opened her own pottery studio. She got promoted to head potter.",
    "My job title is now Staff Engineer. I'm a nurse at St Luke's.",
    "Dad just retired. Mom teaches chemistry at the high school.",
    "I accepted an offer from Nimbus and join Nimbus as an analyst.",
    "I got hired by Quarry Health; I quit my old warehouse job.",
    "Today was my last day at Polder Foods. I start with Ridgeline on Tuesday.",
    "I began working for Atlas Freight and I work as an electrician.",
    "I got laid off from Quarry Health. I started at Nimbus on Monday.",
    "I left Orbital after four years. Priya is now at Kestrel Systems.",
    # manager, partner, marital status
    "My new manager is Dana Ruiz. Owen, who just took over as my boss, is kind.",
    "Marta is now our supervisor. I report to Marta.",
    "I'm dating Leo; my girlfriend Ines is lovely. Sam and I have been together for years.",
    "Alex Reyes is my partner. Nora Lind and I have been together since May.",
    "I broke up with Theo, after the breakup we split up. We got engaged! I'm married.",
    "Mia and I got divorced in May; I got divorced once before. I have separated the laundry.",
    "I got laid off in May; Tom was let go too. I fired my assistant. You can reach me at 555-0142.",
    "Mei has been at Larkspur Labs for six years. I'm learning Portuguese and gave up on Italian.",
    "My husband and I separated; Ana is separating from Luis.",
    "Noor just turned 9. I'm 41 years old, and my nephew Ravi is 12. The retro got moved to 4.",
    "Kai moved to Oslo for a new job at Equinor.",
    "Please use kim@mail.example from now on, or use 555-201-7788 instead.",
    "I pulled out of the Oslo marathon, so no race this year.",
    "We love kayaking on weekends, and my uncle collects old stamps.",
    "We deploy on Mondays, and the retro is on Friday.",
    "I am on a keto diet. I went off keto and stopped doing crossfit.",
    # diet, drink, smoking, allergies
    "I'm not vegan anymore. I went vegetarian in May. I don't eat pork.",
    "I started eating fish again. I quit drinking beer, and I'm sober now.",
    "We eat meat again.",
    "I enjoy a glass of wine. I quit smoking; he smokes.",
    "I'm allergic to penicillin; I'm no longer allergic to cats. My main allergy is to pollen.",
    "The medication I react to is ibuprofen. Shellfish don't bother me since the shots.",
    # contact details, vehicles, devices, commute, weight
    "My work email is dana.ruiz@example.org and my personal number is 555-010-7788.",
    "My email: me@example.com. My new address is 12 Elm Street, Apt 4.",
    "We moved to 7 Birch Lane. My cell is (555) 201-3344.",
    "New number: 555-010-4455. My office line is +1 555 010 0200.",
    "I drive a Subaru Outback; my Tesla is in the shop. Our car is a used Honda Civic.",
    "I sold my old car. I use an iPhone 15; my Pixel broke.",
    "Traded the old Civic in for a Mazda CX-5.",
    "I'm done with my old bank; all my savings are at Ally Bank now.",
    "Our beagle Biscuit is twelve. We lost Pepper in the spring, and the vet cried.",
    "Rex passed away last night; he was the best dog.",
    "I'm not doing the pickleball league anymore.",
    "I take the bus to work. Now I bike to work. Instead of taking the train, I walk.",
    "I weigh about 72 kg. I'm down to 160 pounds.", "Down to 78 kg now!", "My dog turned 5 last week.",
    # providers, banks, schools, pets, names
    "My dentist is now Dr. Okafor. We switched to Dr. Lind at the dental clinic.",
    "I found a new vet, Dr. Amari. We got a new babysitter named Ines. Our budget is about 900 euros.",
    "My internet provider is now Fibrenet. Our broadband comes through Sky.",
    "We switched our phone plan to Mint. We went with Verizon for the carrier.",
    "I cancelled the old cable internet. I bank with Monzo; my new bank is Chase.",
    "I moved my savings over to a credit union called Alpine. I closed my old checking account.",
    "My son Eli goes to Maple Elementary. Her first day at Westbrook Academy was fun.",
    "We adopted a beagle. Our old cat died last spring.",
    # a job taken after "and", counts, goals as headings, degrees and programs, carriers, where mail goes
    "I quit Intel and got a job at Nvidia. I commute by train. We have three cats now.",
    "First month with Accenture behind me, and my manager is great.",
    "Nadia resigned from the law firm; her husband left the civil service in June.",
    "Fostered one more puppy, which makes four dogs; the twins arrived, bringing us to three kids.",
    "New goal: a full marathon. I'm doing an MBA at Ohio State University.",
    "I enrolled in a data science bootcamp. I ported my number to Visible.",
    "Reach me at kim@newco.io from now on. The HOA fee is set to $260 a month.",
    "My dog is named Biscuit. We renamed our parrot Kiwi. My coworker's name is Jun.",
    "My colleague is Arjun. The new intern's name is Bea.",
    # favourites, orders, languages, activities
    "My favourite band right now is Wet Leg. I switched my go-to editor to Helix.",
    "Fleabag is my new favourite show. The best pizza in town is Lucali.",
    "Mitski is the artist I can't stop listening to. I'm obsessed with Severance, the show.",
    "My usual coffee order is an oat cortado. I always order a flat white.",
    "My go-to language for scripts is Python. We migrated our backend over to Rust.",
    "I speak fluent Portuguese. My main hobby is climbing. I spend my free time gardening.",
    "I play in a jazz band. I took up bouldering. I quit the Sunday league.",
    # frequency, times, dates
    "I go to the gym three times a week. I usually go to bed around 11 pm.",
    "I wake up at 6:30 am. The weekly standup is on Tuesdays at 9 am.",
    "We pushed the client call to Friday. My birthday is on March 3.",
    "The grant proposal is due June 1. The budget deadline got pushed to July 15.",
    "The deadline for the quarterly report is now June 30. We have to be out by August 31.",
    "They let us stay here until September 30. The website relaunch is on hold.",
    # amounts, counts, goals, reading, children
    "Our rent went up to $1,700 a month. They raised my salary to $95k a year.",
    "I pay $1,200 in rent. I manage a team of six engineers. Our team grew to ten people.",
    "My goal this year is to run a marathon. I'm training for a half marathon.",
    "Our book club is reading \"Piranesi\" this month. We had a baby girl named Nora.",
    "I'm reading Project Hail Mary right now. Finished The Hobbit last week.",
    "I just finished \"A Dance with Dragons\" and loved it.",
    "I take 20 mg of lisinopril daily. Dr. Ruiz put me on atorvastatin.",
    "I stopped taking metformin. The doctor took me off warfarin.",
    # case folding outside ASCII: the Kelvin sign, the long s, dotted and dotless i
    "İ live in İzmir. I moved to Kyoto. My \u212aia is great.",
    "My ſister ſays I ſmoke. I'm allergıc to nuts. I ſwitched to a \u212aia.",
    "MY NEW MANAGER IS DANA RUIZ. I WORK AT ACME CORP.",
    "I’m a teacher; I’m getting married; she’s my fiancée.",
    "Dr. Hale is my doctor. Mr. Patel is my landlord. St. Mary's is where I work.",
    # update cues
    "Correction: I meant Tuesday, not Monday. I also adopted a second cat, as well as a dog.",
    "Me too. That was too much. No longer the main office, only the annex from now on.",
    "",
    "ok",
]

DATA = Path(os.environ.get("WORLDDB_DEV_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))


def dev_texts() -> list[str]:
    """LoCoMo dev turns and the update cases' statements; skips (saying why) where absent."""
    locomo, updates = DATA / "locomo-dev.json", DATA / "updates-dev.json"
    if not locomo.exists() or not updates.exists():
        pytest.skip(f"the dev corpora are not at {DATA} (set WORLDDB_DEV_DATA to their folder)")
    texts = [turn["text"] for conversation in json.loads(locomo.read_text())
             for key, turns in conversation["conversation"].items()
             if key.startswith("session_") and isinstance(turns, list) for turn in turns]
    for case in json.loads(updates.read_text())["cases"]:
        texts += [case["old"], case["new"], *case["distractors"]]
    return texts


class Checked:
    """A rule's pattern that, on every match, checks that the span holds a member of each
    literal set the pattern needs, and counts the match."""

    def __init__(self, index: int, pattern: re.Pattern[str], needs: tuple[frozenset[str], ...],
                 matched: set[int]) -> None:
        self.index, self.pattern, self.needs, self.matched = index, pattern, needs, matched

    @property
    def groupindex(self):
        return self.pattern.groupindex

    def finditer(self, clause: str, pos: int = 0) -> Iterator[re.Match[str]]:
        for m in self.pattern.finditer(clause, pos):
            self.matched.add(self.index)
            span = fold(m.group(0))
            for strings in self.needs:
                assert any(s in span for s in strings), (clause, m.group(0), sorted(strings))
            yield m


def plain_read(text: str, speaker_is: str | None = None, attributes: frozenset[str] | None = None, *,
               monkeypatch: pytest.MonkeyPatch, matched: set[int] | None = None) -> slots.Reading:
    """The reading with no prefilter: every rule on every clause, every cue pattern run; each
    match checked against the literals its pattern needs, and every matching rule checked to be
    among the prefilter's candidates."""
    protected = _slot_values._protect(text)
    possible = _slot_prefilter._possible(protected, attributes)
    found: set[int] = set()
    rules = [dataclasses.replace(rule, pattern=Checked(i, rule.pattern, needs, found))
             for i, (rule, needs) in enumerate(_slot_prefilter._needs().rules)
             if attributes is None or rule.attribute in attributes]
    claims = _slot_reader._claims(protected, rules, speaker_is)
    assert {_slot_rules._RULES[i] for i in found} <= set(possible), text
    for _kind, rx, needs in _slot_cues._cue_needs():
        for m in rx.finditer(text):
            assert all(any(s in fold(m.group(0)) for s in strings) for strings in needs), (text, m.group(0))
    with monkeypatch.context() as m:
        m.setattr(_slot_cues, "_cue_needs", lambda: tuple((kind, rx, ()) for kind, rx in _slot_cues._CUES))
        cues = _slot_cues._cues(text)
    if matched is not None:
        matched |= found
    catalogue = tuple(_slot_reader._pruned(claims))
    opened = _slot_reader._opened(text, speaker_is)
    return slots.Reading(catalogue + _slot_reader._open_kept(opened, catalogue, attributes), cues)


def test_every_rule_needs_literals_that_each_of_its_matches_holds(monkeypatch):
    assert sum(bool(needs) for _rule, needs in _slot_prefilter._needs().rules) >= len(_slot_rules._RULES) - 2
    matched: set[int] = set()
    for text in CRAFTED:
        for speaker_is in (None, "Dana"):
            assert _slot_reader._read.__wrapped__(text, speaker_is, None) == plain_read(
                text, speaker_is, monkeypatch=monkeypatch, matched=matched), text
    assert matched == set(range(len(_slot_rules._RULES)))  # every rule was checked on a match of its own


def test_readings_equal_the_plain_path_on_the_dev_corpora(monkeypatch):
    texts = dev_texts()
    some = [frozenset({"home", "employer"}), frozenset({"when", "due", "status"})]
    claims, matched = 0, set()
    for i, text in enumerate(texts[::3]):
        speaker = "Melanie" if i % 2 else None
        reading = _slot_reader._read.__wrapped__(text, speaker, None)
        assert reading == plain_read(text, speaker, monkeypatch=monkeypatch, matched=matched), text
        claims += len(reading.claims)
        if i % 8 == 0:
            attributes = some[i % 2]
            assert _slot_reader._read.__wrapped__(text, speaker, attributes) == plain_read(
                text, speaker, attributes, monkeypatch=monkeypatch), text
    assert claims > 50 and len(matched) > 50  # not a comparison of empty readings


def test_the_public_read_is_unchanged_for_odd_case_folding():
    # "İ" matches "I" case-insensitively (the subject), "ſ" matches "s", the Kelvin sign "k"
    assert [c.attribute for c in slots.read("İ live in Ankara.").claims] == ["home"]
    assert slots.read("I ſmoke.").claims[0].attribute == "smoking"
    assert slots.read("I wor\u212a at Acme.").claims[0].value == "Acme"
