"""Slot readings of update detection: what a text, a stored memory, a turn and its facts claim,
in the voice of whoever said it.

Each text's slot claims and cues (worlddb.extract.slots, no store access), plus
the facts the extractor or the client gave (a relation named by --functional, or by a
registered functional handler, holds one value at a time). A candidate's text is read from
the parts its own write kept (worlddb.memory.readings) when this reader kept them in the
voice the judge reads it in - the same reading, assembled - else read again; its current
facts are read for all the candidates at once (`stored_facts_of`).

The claims index (worlddb.memory.claims) records what `claim_keys` reads, and the readings table
(worlddb.memory.readings) the parts `text_parts` reads; `CLAIMS_READER` says which reading that is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from worlddb.core import schema
from worlddb.core.store import Store
from worlddb.extract import GENERIC_ROLES, FactCandidate, addressed
from worlddb.extract.slots import (
    ME,
    Reading,
    ReadingParts,
    SlotClaim,
    attribute_for_relation,
    names_another,
    normalise_subject,
    read,
    read_parts,
    voice,
)
from worlddb.graph import text_index
from worlddb.retrieval import claims as claims_index

from . import readings as kept_readings
from .services import Services

#: the reading of a candidate the judge needs none of (UpdateJudge.only_repeats)
UNREAD = Reading()


#: which reading of a text's claims this code records (`claim_keys`): raise it whenever a
#: change to the slot reader (worlddb.extract.slots) or to `claim_keys` changes what some text
#: claims. A store whose rows another reader recorded has its memories read again, in the
#: background, by this one (worlddb.memory.claims_backfill.mark_stale). A test holds the
#: number to the keys it reads from a fixed set of texts (tests/memory/test_claims_reader.py).
#: Reader 2: a pronoun's person is named before it, and "my sister got a job at" is hers.
#: Reader 3: a wish, a plan or a condition ("I might move to Denver") claims nothing.
#: Reader 4: a named speaker's first person is keyed under the speaker's name; "is set to",
#: "<kind> line:" and a number as no provider.
#: Reader 5: "I quit Dell", "laid off from", "started at Stripe" are read as the job they end or begin.
#: Reader 6: a value stops at an "and" that begins a new clause; "you", "It", a gerund claim nothing;
#: a hope is irrealis; "I left Dell", "I'm now at Stripe", "New number:", "the thermostat is set to".
#: Readers 7-9: contractions, purposes, "cancelled X and joined Y", roles and titles, openers.
#: Reader 10: conversation turns' claims are recorded too (worlddb.memory.turn_updates).
#: Reader 11: "quit X and started at Y" names Y; "a while ago", "five years ago" end a value.
#: Reader 12: a turn's rows are recorded under its attributes prefixed (claims.TURN).
#: Reader 13: an assistant's turn claims what it restates of the user ("you live in Austin").
#: Reader 14: a change said for a time still to come claims nothing yet; a name quit is no activity,
#: and no job when something else is got instead; "got a job at", counts of a kind, goals as
#: headings, fees "set to", degrees and programs, carriers, insurers by kind, where mail goes.
#: Reader 15: a title read now ("I'm reading Dune") or finished ("Finished Dune") is the book being read.
#: Reader 16: medications taken or stopped ("I take 20 mg of lisinopril", "took me off warfarin").
#: Reader 17: "I got divorced (in May)", "X and I got divorced" end the partner; "Our cat Luna died" the pet;
#: a banker or a broker is an occupation ("I work as a banker at Citi"); "I got laid off" ends the
#: job; "reach me at 555-0199" is a phone number; "My brother Sam ..." is keyed under "brother" too;
#: "on a keto diet", "stopped being vegan" are diets.
#: Reader 18: "I've been at Stripe since January" is an employer; "I separated from my husband",
#: "My wife and I split up" end the partner; "I'm learning Spanish" is an activity, and "I gave up
#: on Spanish" ends it; ages ("Lily just turned 8"); a meeting moved to a bare hour ("to 10"); "My
#: coworker Raj prefers Python" is Raj's preference; "moved to Portland for a new job at Nike" is
#: the mover's job, not Portland's; a job applied for, offered or turned down is none held; "Please
#: use alice@new.io from now on" is the speaker's email; "no marathon this year", "I pulled out of the
#: Boston marathon" end the goal ("Boston marathon" whole, not "Boston"); "I moved all my accounts to
#: Ally Bank" is the bank; "I'm asleep by 9:30", "I fall asleep around 10" are bedtimes; "I love
#: hiking", "I collect vinyl records" are pastimes (activity); a project's parts ("The frontend is
#: written in React", "We moved CI to Buildkite") and URLs are open slots; "We deploy on Tuesdays".
#: Reader 19: a clause may leave its subject out ("Switched to Neovim", "Sold the Civic and bought a
#: Tesla": the speaker's, not "Sold"'s); an open slot is read from a clause's head when a detail
#: follows its value ("The API is hosted on Heroku, two standard dynos"); "The frontend is a Vue 2
#: app", "Our unit tests run on Jest", "Staging is at <URL>" (the staging URL), "We moved the API from
#: our old host onto Fly.io"; a pet's value keeps its name ("beagle Biscuit"), and "we lost Biscuit"
#: ends it where the text speaks of pets; "I broke up with my girlfriend Amy" only ends Amy; "QA lead";
#: "switched me over to escitalopram"; "Traded the old car in for a Mazda"; "I'm done with my old
#: bank"; "I'm not doing the league anymore"; "I'm in Leeds, renting ..."; "What I actually react to
#: is codeine"; a tool's name in lower case as a part's value ("switched the monorepo over to pnpm");
#: an open slot's statement after a short label ("Quick context: the API is hosted on Heroku"); "We
#: run CI on Travis".
#: Reader 20: "He's a nurse now" is a role; "still drives his old Volvo" holds the Volvo; "bought
#: himself a Honda Jazz" is a car; "Dad sold the Volvo and bought ..." is Dad's; a clause may open with
#: the time it is dated from ("As of Friday the site lives on Cloudflare Pages", "Since May ...").
#: Reader 21: "..., which makes three cats", "bringing us to two dogs" are counts; "First week at
#: Monzo done" opening a sentence of a text that speaks of work is the employer.
#: Reader 22: a verb in the past that opens a text ("Called Mum. She ...") is no pronoun's person;
#: "quit the clinic", "left the company" end a job (not a pastime), and "left the office" nothing.
#: Reader 23: a season or a month after a verb of an arranged future ("we're moving to Montreal in
#: the spring", "I'm starting at Kestrel in January") is a change still to come.
#: Reader 24: "Got a new phone number: ..." opening a note is the speaker's phone.
#: Reader 25: a clause opened by a full name is about that full name ("Alex Morgan is a customer who
#: works at Globex": alex morgan, not alex), and so is a pronoun whose antecedent is one.
#: Reader 26: "the 14th of March" is the whole date; a company one moves to ("moved to Umbrella Corp")
#: is an employer, never a home; supplements are taken as medicines are ("I take vitamin D").
#: Reader 27: a named person's thing is theirs ("Jen's flight": jen's flight, not flight), so it is
#: neither the speaker's nor another person's of that name.
#: Reader 28: a medicine started is taken ("I started metformin 500mg").
#: Reader 29: a medicine's dose is a slot of its own, one per medicine ("lisinopril 10mg").
#: Reader 30: a named person's birthday or anniversary is read as one's own is ("Sam's birthday is ...").
#: Reader 31: a title ending in "practitioner" or a specialist's suffix ("pediatrician", "radiologist") is a
#: role; "a teacher at Lincoln" is a teacher at Lincoln, not a role of "teacher at Lincoln".
#: Reader 32: a date or a time is no place ("The project deadline moved to April 2" is no home); a note
#: that opens with the weight reached is the speaker's weight ("Down to 78 kg now!"); "my dog turned 5" is
#: the dog's age.
#: Reader 33: a sum that opens a sentence is a thing's amount with no "my" ("Rent went up to $2,350"); a
#: medicine of someone's raised or lowered to a dose is their dose ("My doctor bumped my Lexapro to 30mg").
#: Reader 34: what one earns is one's salary ("Got a raise, I make $110k now").
#: Reader 35: a student's year names the school ("I'm a junior at UCLA"), which "graduated from" ends; an
#: account opened in a text that speaks of banking is at one's bank ("opened a checking account at Ally").
#: Reader 36: what one makes doing something is no salary ("I make $20 an hour babysitting").
#: Reader 37: "I'm Sam, ..." is the speaker's name, as "My name is Sam" is.
#: Reader 38: a car named by its model alone ("I drive a Civic"); "my Honda Civic is ..." holds no "is".
#: Reader 39: a name beside the role it holds ("Marcus, my manager since May", "Dr. Kim is my new GP",
#: "Sam is my boyfriend"); "pushed the launch out to April 14"; a child dropped off or picked up at a
#: school; "Day three at Stripe" where the text speaks of work; a way to work taken on one day is no
#: habit ("took the train to work today"); "a strict vegetarian" keeps a diet; a thing's name whose
#: ending looks plural stays as written ("the Atlas project", not "atla project"); the team one works in
#: ("I'm on the payments team", "I joined the search team"; not a sports team).
#: Reader 40: the car one drives now ("I drive a Tesla now" takes the old car's place); a phone by its
#: make is the device; "Priya's new job is at Intuit" is an employer; a class kept every week ("I have
#: yoga every Monday at 6pm") is a thing's time, and one week's exception is no change of it.
#: Reader 41: a day of each month by its place ("the first Friday of the month") is a time; "now meets".
#: Reader 42: a text that names someone by the user's name ("my coworker Alice") reads that name as theirs.
#: Reader 43: a home named past the street it is on ("a flat on Elm Street in Portland").
#: Reader 44: "I switched jobs to Globex", "changed jobs to Acme" name the new employer.
#: Reader 45: the pets a have-clause goes on to name ("I have a dog named Rex and a cat named Tom").
#: Reader 46: a role in the simple past ("I was a nurse") is one held before, as "I worked as" is.
#: Reader 47: a relative by marriage or by one parent ("my sister-in-law Maria", "my stepsister") is
#: a kin word of its own, not the sister.
#: Reader 48: a fact of a pet of one's ("Rex is my dog": has_dog Rex) claims the pet, by its name.
#: Reader 49: the pets a count names ("I have two dogs, Rex and Fido"); a relative clause after the
#: speaker's object ("I know someone who works at Google") is not the speaker's; "the user" is the
#: user; a day after a verb of an arranged future ("I start at Stripe on Monday") is still to come;
#: an assistant's, a system's or a tool's first person is theirs, not the user's.
#: Reader 50: a thing one cancelled or called off ("We called off the book club meeting") has that status.
#: Reader 51: a named place one is at now, where the text says the job changed ("I switched jobs, I'm at
#: Meta now").
#: Reader 52: "I'm Tomás, ...": a name said of oneself in letters of any script ("Tomás", "Zoë Ruiz").
#: Reader 53: a thing one had to cancel, is told to cancel, or that is off or called off ("I had to cancel my
#: dentist appointment", "Cancel the dentist", "The marathon is off": an event's only) has that status; a
#: marathon, a triathlon and a race are events, with times.
#: Reader 54: a partner named in full before the role or "and I" ("Alex Reyes is my partner", "Alex Reyes
#: and I have been together"), where the surname alone was read.
#: Reader 55: a month or a day is no medicine ("My marathon is on April 20"), and a kind of medicine is one
#: ("on antibiotics"); an event one has on a day has that time ("I have a dentist appointment on Monday at
#: 2pm"); a clause asked with its verb first states nothing ("Cancel my gym membership?"); a full name is
#: not made singular ("Dana Reyes").
#: Reader 56: the user named in the third person ("User lives in Chicago", "User's manager is Lena Park",
#: "Lena Park is the user's manager") is the first person wherever a subject is read, and in another
#: speaker's text the sentences about the user are the user's; "moved from Chicago to Denver" is a
#: home taken and one left; "My manager at Helio Health is Lena Park".
#: Reader 57: a pastime gone out to as a habit ("I go bouldering on Sundays") and a class, club or
#: league one joins, starts, takes or goes to ("I joined a running club": "running club"); a thing one
#: stopped using or taking ("stopped using the inhaler") is no pastime given up.
#: Reader 58: an assistant's turn that takes note of what it was told ("I'll remember you take
#: sertraline", "I've noted that your manager is Tom") claims what it notes, in the user's voice.
#: Reader 59: a device or medicine taken or used for a condition ("I take an albuterol inhaler", "User uses an
#: inhaler for asthma", "I take Symbicort for my asthma") is a medication, and one stopped or no longer used
#: ends it; how one works may stand before the employer ("works remotely for Brightline"); an event named
#: with its time and called off ("The dentist appointment on Friday is cancelled") has that status and no
#: new time; what a group of the speaker's reads now ("Our book club is reading Piranesi") is the group's.
#: Reader 60: a word that begins a place's name is part of it ("New York", not "York"); a statement
#: that ends in a tag question states ("Living in Austin now, remember?"); a move "from X to Y" between
#: two names the lexicon knows neither of, or one written as a product's, is no home ("from Vim to
#: Neovim"); the speaker or a person joined to a relative is the subject ("I and my wife", "User and
#: his wife").
#: Reader 61: each diet of a negated list ("not vegetarian or pescatarian"), and one negated in a
#: contraction ("My dad isn't vegan"); a named owner's carer ("Biscuit's vet", "my sister's dentist");
#: a pastime kept on a weekday, however named ("I go climbing on Tuesdays"), has that day as its time,
#: and one word opening a clause given a weekday as a habit ("Climbing moved to Mondays") a new one.
#: Reader 62: a move to a name is a home only where the word list knows it as a proper noun, the
#: gazetteer holds it (worlddb.extract.places: "Lagos") or the text says it is a home ("into a little
#: house"): "We moved to Buildkite", "I moved to Cursor" are a tool's. A role said after the employer
#: ("I work at Acme as a product manager", "started at Stripe as a support engineer") is read, and so
#: is a replacement said "X in favour of Y" or "swapped X for Y" ("Ripped GORM out in favour of sqlc").
#: Reader 63: the company of the team one is in ("I'm in the risk team at KPMG") and one named
#: after its kind ("joined a small fintech called Brightpath") are the employer; a phone one is on ("I'm
#: on a Pixel 6a") or swapped another for ("Swapped the Galaxy for a Fairphone 4") is the device, and
#: the old one a swap gives up ("swapped my old Galaxy for ...") leaves the new one held. A move made
#: for a part of a software system ("We moved to Vue for the frontend") is no home. The holder of a
#: role one person holds at a time is its open slot's value ("Our CTO is Dana Lee"), and so is a
#: new holder named first ("Priya Nair has taken over as tech lead"). A note that opens with a new
#: email ("New email: ...") is the speaker's, and a switch to a thing after an article ("Switched to
#: a Mac") replaces. A place one is in now, where the text says one moved ("I'm in Berlin now,
#: moved last spring"), is a home; a job taken as something ("started a new job as a paramedic") is
#: the role; an hour followed by "now" is a time ("Standup is at 10 now"); an allergy said to be gone
#: ("My cat allergy is gone") ends. A verb a rule reads after "stopped", "quit" or "gave up" is
#: given up ("I stopped dating Sam", "I stopped working at Dell"), and a doctor is no partner ("I
#: stopped seeing Dr. Kim" ends the doctor); a raise names the salary, a team grown to a number its
#: count (said of "the team" too), and the company one retired from is left. A person named by a
#: given name and "and" before the subject holds the value too ("Tom and Ana moved to Lisbon"). "I
#: sleep around 11pm" and an hour said "lately" are a bedtime; a thing of one's own upped, raised,
#: lowered or cut to a value is set to it ("I've upped my morning run to 8k").
#: Reader 64: a move to a name the gazetteer lacks that is also a common word, that has a number in
#: it or a word of software ("Grafana Cloud") is no home ("We moved to Linear", "... to Vue 3"),
#: nor is one made for dashboards, alerting, chat and such parts of a system, nor a school ("Alba
#: moved up to Northgate Secondary"); schools named "Primary", "Secondary" or "Grammar" are
#: schools, and a school started at is an employer only where the text speaks of a job there. A
#: team lead is the manager wherever a manager is ("Jonas Weber is our new team lead", "the team
#: lead is ...", "took over as team lead"). A pastime kept by doing it on a weekday ("I swim on
#: Mondays") is its gerund's day, and a day moved after a contraction ("Swimming's moved to
#: Tuesdays") is read, and a question asks it by the gerund ("When do I swim?"); a book club asked
#: when or where it meets is asked no book; an end or an absence whose verb is negated says nothing
#: ("I never left Google", "I haven't quit climbing"); and a stop or a departure followed by where,
#: why or when ("I stopped by Sam's", "stopped to think", "left early") gives up no pastime. A rent
#: put up to a sum, and one "I'm paying", are the rent. A job, a home or another change said to
#: start later ("accepted an offer from Quillon, starting in January", "My new job at Stripe starts
#: soon") is not held yet. A move to a tool for a purpose ("moved to Grafana Cloud for monitoring")
#: replaces, as a switch does. A medicine's dose moved without the word "dose" ("My levothyroxine
#: went up to 75mcg") is the dose, and one who moved in with someone has left their home. The hour
#: "we" or the shop open or close at is the hour of "open" or "close". A subject learnt or taken on
#: a weekday has that day; a semi, a terrace, a cottage and the like bought or rented in a place are
#: a home there; a role qualified or retrained as is the role. A service switched to a provider
#: needs no "our" ("We switched broadband to Hyperoptic").
#: Reader 65: a carer or a bank changed by its kind ("We changed paediatricians", "I switched
#: dentists", "I've changed banks") ends the one of that kind held; a child seen by a doctor where
#: the text speaks of a paediatrician has that carer, and "paediatrician" and "pediatrician" are
#: one kind. A verb whose subject is no one or nothing ("nothing changed there") states no change.
#: One named as managing or supervising the speaker is the manager ("Dr. Fiona Kerr supervises me
#: now"), and one who coaches the speaker the coach; an energy supplier is the electricity's; a
#: long run, a ride or a workout is a thing kept on a weekday, and one kept by "doing" it too ("I
#: do my long run on Sundays"). A carer moved to and named after its kind ("We moved Bramble to a
#: vet closer to home, Meadow Vets") is the household's carer of that kind, and "a" or "a new"
#: something of a name moved to is no home ("I moved to a new GP, Dr. Patel").
#: Reader 66: a thing of one's own named in the plural holds a name as one in the singular does ("My
#: running shoes are Nike Pegasus"), which a switch to another name replaces.
#: Reader 67: a practice registered with is the carer of its kind ("We registered with the Elm Grove
#: practice", "... with Hillside Vets"), as is a GP's or dentist's surgery named ("My GP surgery is
#: Riverside Medical Centre").
#: Reader 68: a run is a thing kept on a weekday only after a word that makes it one ("long run",
#: "group run"): "The farmers market runs Saturdays" names no run.
CLAIMS_READER = schema.CLAIMS_READER


def claim_keys(text: str, facts: Iterable[FactCandidate], user: str | None,
               speaker: str | None = None) -> frozenset[claims_index.Key]:
    """What the claims index records for a memory about to be written (outside the lock), said
    by `speaker` (`speaker_of` its metadata): a named speaker's first-person claims are keyed
    under the speaker's name, not "me"."""
    return claims_index.keys(claim_reading(text, facts, user, speaker), text)


def claim_reading(text: str, facts: Iterable[FactCandidate], user: str | None,
                  speaker: str | None = None) -> Reading:
    """The slot reading `claim_keys` keys: the text's claims and its facts', in `speaker`'s voice."""
    return reading_of(text, facts, user, speaker=speaker)


#: the role whose turns restate what the user said (turn_reading)
ASSISTANT = "assistant"


def turn_reading(text: str, speaker: str, user: str | None) -> Reading:
    """The slot reading of a conversation turn said by `speaker` (its role as given): in the
    speaker's voice, the scope's user's for "user". An assistant's turn is read for what it
    restates of the user, in the user's voice: its plain statements about "you"
    (worlddb.extract.addressed; "Got it - you live in Austin"). A system's or a tool's turn, or
    one of no one, claims nothing (worlddb.memory.turn_updates)."""
    folded = speaker.strip().casefold()
    if folded == ASSISTANT:
        restated = addressed.as_user(text)
        return reading_of(restated, (), user, speaker="user") if restated else UNREAD
    if not folded or folded in GENERIC_ROLES - {"user"}:
        return UNREAD
    return reading_of(text, (), user, speaker=speaker)


def restates(speaker: str) -> bool:
    """Whether a turn of `speaker` (its role as given) only restates what another said: an
    assistant's, whose claims are what it took the user to have said (`turn_reading`)."""
    return speaker.strip().casefold() == ASSISTANT


def stored_reading(store: Store, view, user: str | None, kept: Mapping[str, ReadingParts] | None = None) -> Reading:
    """A stored memory's reading as the judge reads a candidate: its text and current facts,
    in its speaker's voice; its text's from `kept` (worlddb.memory.readings, loaded here if
    not given) when that holds it."""
    speaker = speaker_of(view.meta)
    if kept is None:
        kept = kept_readings.load(store, {view.anchor: (user, speaker)})
    parts = kept.get(view.anchor)
    found = read(view.content or "", speaker_is=user, speaker=speaker) if parts is None else parts.reading()
    return with_facts(found, stored_facts(store, view.anchor), user, None, speaker, view.content or "")


def written_voice(view) -> kept_readings.Voice:
    """The user and speaker a stored turn's or memory's write read it for."""
    user = user_named(view.provenance)
    return user, (view.meta.get("speaker") or "") if view.type == "Turn" else speaker_of(view.meta)


def said_as(view) -> str | None:
    """Whose voice a stored turn or memory is in, for a change the rules cannot read: its
    speaker's, the user's for an assistant's turn (it restates what the user said: `turn_reading`)."""
    speaker = written_voice(view)[1]
    return "user" if view.type == "Turn" and restates(speaker or "") else speaker


def stored_readings(store: Store, views: Iterable) -> list[Reading]:
    """Stored turns' and memories' readings, as their writes read them (`as_written`), with one
    look for those kept (worlddb.memory.readings)."""
    views = list(views)
    kept = kept_readings.load(store, {view.anchor: written_voice(view) for view in views})
    return [as_written(store, view, kept) for view in views]


def as_written(store: Store, view, kept: Mapping[str, ReadingParts] | None = None) -> Reading:
    """A stored turn's or memory's reading, as its write read it: kept, where `kept` (loaded
    here if not given) holds it, else read again."""
    user, speaker = written_voice(view)
    if kept is None:
        kept = kept_readings.load(store, {view.anchor: (user, speaker)})
    if view.type != "Turn":
        return stored_reading(store, view, user, kept)
    parts = kept.get(view.anchor)
    return parts.reading() if parts is not None else turn_reading(view.content or "", speaker, user)


def text_parts(text: str, user: str | None, speaker: str | None) -> ReadingParts:
    """A memory's own slot reading in parts, without its facts' claims, in `speaker`'s voice:
    what a write keeps of it (worlddb.memory.readings) and the judge reads of it later."""
    return read_parts(text, speaker_is=user, speaker=speaker)


def view_reading(services: Services, view, user: str | None, attributes: frozenset[str] | None,
                  kept: Mapping[str, ReadingParts], facts: Mapping[str, list[FactCandidate]] | None = None) -> Reading:
    """A candidate's reading (of `attributes` only, if given), as `reading_of` reads its text and
    current facts in its speaker's voice: from its kept reading when `kept` holds it, with its
    facts from `facts` (`stored_facts_of` the candidates) when given."""
    speaker = speaker_of(view.meta)
    parts = kept.get(view.anchor)
    found = read(view.content or "", speaker_is=user, attributes=attributes, speaker=speaker) if parts is None \
        else parts.reading(attributes)
    if attributes is not None and not attributes:
        return with_facts(found, (), user, attributes, speaker)
    own = facts.get(view.anchor, []) if facts is not None else stored_facts(services.store, view.anchor)
    return with_facts(found, own, user, attributes, speaker, view.content or "")


def user_named(provenance: object) -> str | None:
    """The `user` a stored memory's or turn's claims were read for: the first user scope its
    write named (its provenance), if any."""
    named = provenance.get("scopes") if isinstance(provenance, Mapping) else None
    for key in named if isinstance(named, list) else ():
        if isinstance(key, str) and key.startswith("user:"):
            return key[len("user:"):]
    return None


def speaker_of(metadata: object) -> str | None:
    """Who a memory's metadata says said its text (its `speaker`, else its `role`), if anyone:
    the voice its first person is read in (slots.read's `speaker`)."""
    return text_index.speaker_named("Memory", metadata) if isinstance(metadata, Mapping) else None


def stored_facts(store: Store, memory: str) -> list[FactCandidate]:
    """The current facts derived from a stored memory, as the extractor's candidates."""
    return stored_facts_of(store, [memory]).get(memory, [])


def stored_facts_of(store: Store, memories: Iterable[str]) -> dict[str, list[FactCandidate]]:
    """`stored_facts` of each of `memories` that has any, in three statements for them all."""
    return {memory: [fact for _, fact in found] for memory, found in facts_of(store, memories).items()}


def facts_of(store: Store, memories: Iterable[str]) -> dict[str, list[tuple[str, FactCandidate]]]:
    """(fact anchor, the fact as the extractor's candidate) of each current fact derived from
    each of `memories` that has any."""
    derived = store.sources(memories, "derived_from", node_type="Fact")
    facts = store.get_many(f for found in derived.values() for f in found)
    current = {anchor: view for anchor, view in facts.items() if view.valid_to is None}
    named = store.get_many({view.meta.get("subject", "") for view in current.values()}
                           | {view.meta.get("object", "") for view in current.values()
                              if view.meta.get("object_is_entity")})
    out: dict[str, list[tuple[str, FactCandidate]]] = {}
    for memory, found in derived.items():
        for view in (current[f] for f in found if f in current):
            meta = view.meta
            subject = named.get(meta.get("subject", ""))
            obj = meta.get("object", "")
            if meta.get("object_is_entity"):
                target = named.get(obj)
                obj = target.name if target is not None else obj
            out.setdefault(memory, []).append((view.anchor, FactCandidate(
                subject.name if subject is not None else "", meta.get("relation", ""), obj or "", view.content or "")))
    return out


def reading_of(text: str, facts: Iterable[FactCandidate], user: str | None,
               attributes: frozenset[str] | None = None, speaker: str | None = None, namesake: bool = False,
               planned: bool = False) -> Reading:
    """The slot reading of a text (of `attributes` only, if given) said by `speaker` (None: the
    user, or no one named), with the claims its facts make. `namesake`: someone else of the
    user's name is known, so the user's name in the text is not read as the user. `planned`: it
    is read as of the later time it was written for (slots.read's `planned`)."""
    read_as = None if namesake and speaker is None else user
    return with_facts(read(text, speaker_is=read_as, attributes=attributes, speaker=speaker, planned=planned),
                      facts, user, attributes, speaker, text, exact=namesake)


def namesakes(services: Services, worlds: list[str], user: str | None) -> frozenset[str]:
    """Someone else of the user's name the scopes know: an entity of that name a write created
    for a text that names someone of the speaker's by it ("my coworker Alice" for the user alice;
    worlddb.memory.write records `namesake_of` in its provenance). "Alice prefers tea", written of
    the user, makes no such one."""
    if user is None:
        return frozenset()
    folded = user.strip().casefold()
    views = services.store.get_many(services.resolver.entities_named(worlds, user))
    return frozenset(a for a, v in views.items() if str(v.provenance.get("namesake_of", "")).casefold() == folded)


def with_facts(reading: Reading, facts: Iterable[FactCandidate], user: str | None,
                attributes: frozenset[str] | None, speaker: str | None, text: str = "", exact: bool = False) -> Reading:
    """`reading` (of `text`, in `speaker`'s voice) with the claims its `facts` make (of
    `attributes` only, if given) that it does not make already; `exact`: only the user's name
    exactly as given names the user (someone else of that name is known: `namesakes`)."""
    extra = []
    others = names_another(text, user)
    for fact in facts:
        claim = fact_claim(fact, user, speaker, exact, others)
        if claim is None or attributes is not None and claim.attribute not in attributes:
            continue
        if not any(c.key == claim.key and c.value.casefold() == claim.value.casefold() for c in reading.claims):
            extra.append(claim)
    return Reading(reading.claims + tuple(extra), reading.cues) if extra else reading


def fact_claim(fact: FactCandidate, user: str | None, speaker: str | None, exact: bool = False,
                others: bool = False) -> SlotClaim | None:
    """The slot claim a fact makes, read in `speaker`'s voice; None for one without both ends.
    `exact`: the user is named by their name exactly as given (someone else of that name is
    known); `others`: the text names someone else by the user's name (`slots.names_another`), so no
    name in its facts is the user ("user" is)."""
    if not fact.subject or not fact.object:
        return None
    named = voice(speaker, user)
    subject = fact.subject.strip()
    said = subject.casefold()
    if named is not None and said in {"i", "me", speaker.strip().casefold()}:
        key = named
    elif said in {"user", "i", "me"} or user and not others and (
            subject == user.strip() if exact else said == user.casefold()):
        key = ME
    else:
        key = normalise_subject(subject)
    return SlotClaim(key, attribute_for_relation(fact.relation), fact.object.strip())
