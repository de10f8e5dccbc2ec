"""Slot readings of phrasings beyond the first catalogue's: a change said for the future, a job
taken in a clause after "and", a product (not a job) given up, counts of a kind, a setting asked
for, a sum "set to", a goal written as a heading, "second" as an ordinal. Phrasings written for
these tests, not taken from any benchmark case."""

from __future__ import annotations

import pytest

from worlddb.extract import ExtractionContext
from worlddb.extract.builtin import BuiltinExtractor
from worlddb.extract.slots import read

from .test_slots import verdict


def claims(text: str) -> set[tuple[str, str, str, bool, bool]]:
    return {(c.subject, c.attribute, c.value, c.positive, c.ended) for c in read(text).claims}


@pytest.mark.parametrize("text", [
    "We're relocating to Boise in three weeks.",
    "I'm moving to Tulsa next month.",
    "I'll be moving to Reno in the spring.",
    "I'm going to start at Kestrel in June.",
    "I start at Kestrel next week.",
    # a season or a month after a verb of an arranged future
    "We're moving to Montreal in the spring.",
    "I'm relocating to Porto this summer.",
    "I'm starting at Kestrel in January.",
    "We're moving to Quito at the end of the month.",
    "In March I'm moving to Denver.",
])
def test_a_change_said_for_the_future_states_no_value_yet(text):
    assert not {c for c in claims(text) if c[1] in ("home", "employer")}


@pytest.mark.parametrize(("text", "claim"), [
    ("I'm moving to Tulsa next month.", ("me", "home", "Tulsa")),
    ("I'll be moving to Reno in the spring.", ("me", "home", "Reno")),
    ("I'm going to start at Kestrel in June.", ("me", "employer", "Kestrel")),
    ("I start at Kestrel next week.", ("me", "employer", "Kestrel")),
])
def test_a_change_said_for_the_future_is_read_as_of_the_time_it_was_written_for(text, claim):
    """A memory written with a later valid_from is read as of then (`planned`): its change holds."""
    assert claim in {(c.subject, c.attribute, c.value) for c in read(text, planned=True).claims if c.positive}


@pytest.mark.parametrize("text", ["I might move to Tulsa next year.", "We're thinking about moving to Reno.",
                                  "If I get the offer I'll start at Kestrel in June."])
def test_a_wish_or_a_condition_is_no_plan_read_as_of_its_time(text):
    assert not [c for c in read(text, planned=True).claims if c.attribute in ("home", "employer")]


@pytest.mark.parametrize(("text", "claim"), [
    ("We relocated to Boise three weeks ago.", ("me", "home", "Boise", True, False)),
    ("We are moving to Tulsa.", ("me", "home", "Tulsa", True, False)),
    ("I started at Kestrel on Monday.", ("me", "employer", "Kestrel", True, False)),
    ("We moved to Montreal in the spring.", ("me", "home", "Montreal", True, False)),
    ("I started at Kestrel in January.", ("me", "employer", "Kestrel", True, False)),
    # a month with its year says nothing of when the move is said
    ("I'm moving to Porto in May 2025.", ("me", "home", "Porto", True, False)),
    # a month before the verb's part of the clause dates what came before it, not the new partner
    ("Noor split from the drummer in June and is seeing Omar now.", ("noor", "partner", "Omar", True, False)),
    # "may" in lower case is no month
    ("I'm moving to Tulsa in may be a week.", ("me", "home", "Tulsa", True, False)),
])
def test_a_change_said_as_done_or_under_way_still_reads(text, claim):
    assert claim in claims(text)


def test_a_future_move_gives_no_lives_in_fact():
    extract = BuiltinExtractor().extract
    assert extract("I'm moving to Tulsa next month.", ExtractionContext()).facts == ()
    assert extract("I'm moving to Montreal in the spring.", ExtractionContext()).facts == ()
    for done in ("I'm moving to Tulsa.", "I moved to Montreal in the spring."):
        assert [f.relation for f in extract(done, ExtractionContext()).facts] == ["lives_in"]


def test_a_future_move_leaves_the_home_current():
    assert verdict("I live in Austin.", "We're relocating to Boise in three weeks.") != "update"
    assert verdict("I live in Toronto, near High Park.", "We're moving to Montreal in the spring.") != "update"


def test_a_job_taken_after_and_is_the_new_employer():
    assert claims("I quit Intel and got a job at Nvidia.") >= {
        ("me", "employer", "Intel", False, True), ("me", "employer", "Nvidia", True, False)}


def test_a_product_given_up_for_another_is_no_job_left():
    read_ = claims("I quit Hulu and got YouTube TV instead.")
    assert not {c for c in read_ if c[1] in ("employer", "activity")}
    assert ("me", "replaces", "Hulu", False, True) in read_


def test_a_company_quit_is_no_activity_but_a_pastime_is():
    assert not {c for c in claims("Tom quit Intel and started at Nvidia.") if c[1] in ("activity", "status")}
    assert ("me", "activity", "chess club", False, True) in claims("I quit the chess club.")


@pytest.mark.parametrize(("old", "new"), [
    ("We have two dogs.", "We have three dogs now."),
    ("I've got one kid.", "We have two kids now that the baby arrived."),
    ("The air conditioner is set to 74.", "Set the air conditioner to 71."),
    ("Our club dues are $90 a year.", "The club dues are set to $120 a year."),
    ("My goal this year is to run a 10K.", "New goal: a full marathon by October."),
])
def test_counts_settings_sums_and_goals_change(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("We have two dogs.", "We have three cats."),       # another kind is another count
    ("We have two dogs.", "We got a second dog's bed."),
])
def test_a_count_of_another_kind_changes_nothing(old, new):
    assert verdict(old, new) != "update"


def test_second_as_an_ordinal_is_no_addition():
    assert not read("Our son is in second grade now.").additive
    assert read("We adopted a second cat.").additive


@pytest.mark.parametrize(("old", "new"), [
    # a partner named where one was single, and single again after a partner
    ("I'm single at the moment.", "I'm dating a guy named Omar now."),
    ("I'm seeing Lena.", "I'm single again."),
    # a commute by one means, then by another
    ("We commute by train.", "I walk to work these days."),
    # an insurer named by its kind of policy, in other words
    ("Our home insurance is with Allstate.", "We switched our home policy to Lemonade."),
    # a carrier a number moves to
    ("My phone carrier is Verizon.", "I ported my number to Visible last week."),
    # where mail goes, said as a request
    ("My work email is kim@oldco.io.",
     "Send work emails to kim@newco.io from now on - that's my inbox at the new job."),
    # a degree studied for at a school, then a program enrolled in
    ("I'm doing a master's in history at Ohio State University.",
     "I enrolled in a nursing program at the community college."),
    # a carer named after two describing words
    ("My primary care physician is Dr. Ruiz.", "My new doctor is Dr. Okoye."),
])
def test_other_ways_of_saying_a_slot_change(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("I'm single at the moment.", "My brother is dating Ines."),          # someone else's partner
    ("Our home insurance is with Allstate.", "We switched our car insurance to Geico."),  # another kind
    ("My work email is kim@oldco.io.", "Send the invoice to billing@acme.com."),        # not the speaker's mail
])
def test_another_person_kind_or_owner_changes_nothing(old, new):
    assert verdict(old, new) != "update"


@pytest.mark.parametrize(("text", "claim"), [
    ("I'm reading Project Hail Mary right now.", ("me", "reading", "Project Hail Mary", True, False)),
    ("Currently reading Dune.", ("me", "reading", "Dune", True, False)),
    ("Finished Project Hail Mary - loved it.", ("me", "reading", "Project Hail Mary", False, True)),
    ('I just finished "A Dance with Dragons" and loved it.', ("me", "reading", "A Dance with Dragons", False, True)),
    ("We finally finished reading The Hobbit.", ("me", "reading", "The Hobbit", False, True)),
])
def test_a_title_read_now_or_finished_is_the_book_being_read(text, claim):
    assert claim in claims(text)


@pytest.mark.parametrize(("old", "new", "outcome"), [
    ("I'm reading Project Hail Mary right now.", "Finished Project Hail Mary - loved it.", "update"),
    ("I'm reading Project Hail Mary right now.", "Now I'm reading Piranesi.", "update"),
    ("I'm reading Project Hail Mary right now.", "I finished Dune years ago.", "related"),  # another book: no change
    ("I'm reading up on Python.", "Finished Project Hail Mary.", "unrelated"),  # no title: nothing read
])
def test_a_book_finished_or_another_begun_ends_the_one_being_read(old, new, outcome):
    assert verdict(old, new) == outcome


@pytest.mark.parametrize(("text", "claim"), [
    ("I take 20 mg of metoprolol every morning.", ("me", "medication", "metoprolol", True, False)),
    ("Dr. Okafor put me on atorvastatin.", ("me", "medication", "atorvastatin", True, False)),
    ("I'm on omeprazole for reflux now.", ("me", "medication", "omeprazole", True, False)),
    ("I stopped taking metformin in June.", ("me", "medication", "metformin", False, True)),
    ("The cardiologist took me off warfarin.", ("me", "medication", "warfarin", False, True)),
])
def test_a_medicine_taken_or_stopped_is_read_by_its_name(text, claim):
    assert claim in claims(text)


@pytest.mark.parametrize("text", ["I take the bus to work.", "I'm on vacation until Monday.",
                                  "I take my nephew Leo to swim practice."])
def test_taking_or_being_on_something_that_is_no_medicine_is_no_medication(text):
    assert not {c for c in claims(text) if c[1] == "medication"}


@pytest.mark.parametrize(("old", "new", "outcome"), [
    ("I take 10 mg of citalopram daily.", "My psychiatrist took me off citalopram; I'm on sertraline now.", "update"),
    ("I take 10 mg of citalopram daily.", "I also take ibuprofen for my knee.", "related"),  # several at once
])
def test_a_medicine_stopped_ends_it_and_another_taken_adds_one(old, new, outcome):
    assert verdict(old, new) == outcome


@pytest.mark.parametrize(("old", "new", "outcome"), [
    # a replacement that names the value it leaves ends that value in whatever slot holds it
    ("I'm learning Spanish on Duolingo.", "Switched from Spanish to Italian, we're going to Rome.", "update"),
    ("I play tennis on Saturdays.", "I moved from Tennis to Padel.", "update"),
    # someone else's value, or a name that merely begins the same, is not the one left
    ("My sister learns Spanish.", "I switched from Spanish to Italian.", "unrelated"),
    ("I live in Austin.", "I switched from Austin Energy to Octopus.", "unrelated"),
])
def test_a_value_named_as_left_by_a_replacement_is_changed_in_its_own_slot(old, new, outcome):
    assert verdict(old, new) == outcome


@pytest.mark.parametrize(("text", "value"), [
    ("Got a new phone number: 503-555-0777.", "503-555-0777"),
    ("I've got a new cell: 503 555 0777", "503 555 0777"),
])
def test_a_note_that_opens_with_a_new_number_got_is_the_speakers_phone(text, value):
    assert ("me", "phone", value, True, False) in claims(text)


def test_a_new_number_someone_else_got_or_of_another_kind_is_no_phone_of_the_speaker():
    assert not claims("My brother got a new number: 555-0100.")
    assert not claims("I got a new number for the order: 12345678.")


@pytest.mark.parametrize(("old", "new"), [
    ("My dentist appointment is Monday at 2pm.", "I had to cancel my dentist appointment."),
    ("My dentist appointment is Monday at 2pm.", "Cancel my dentist appointment, I'll rebook."),
    ("Our team offsite is on Friday the 9th.", "We decided to call off the team offsite."),
    ("The wedding is on June 5.", "The wedding got called off."),
    ("The marathon is on Sunday.", "The marathon is off."),
])
def test_a_thing_called_off_in_other_words_ends_its_time(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["I never cancel on friends.", "The power is off.", "Off to the dentist!",
                                  "I might have to cancel my dentist appointment.", "Don't cancel the dentist.",
                                  "The race is on!", "My day off is Friday."])
def test_what_calls_nothing_off_reads_no_status(text):
    assert not {c for c in claims(text) if c[1] == "status"}


@pytest.mark.parametrize("text", [
    "My marathon is on April 20.", "The wedding is on April 12th.", "Our trip to Lisbon is on April 3.",
    "I started April 1 at the new clinic.", "I'm off April 3 through April 10.", "My sister is on April 20th's flight.",
])
def test_a_month_whose_name_ends_like_a_medicine_is_no_medication(text):
    assert not {c for c in claims(text) if c[1] in ("medication", "dose")}


@pytest.mark.parametrize(("text", "claim"), [
    ("My marathon is on April 20.", ("marathon", "when", "April 20", True, False)),
    ("My flight is on Friday.", ("flight", "when", "Friday", True, False)),
    ("I'm on metformin.", ("me", "medication", "metformin", True, False)),
    ("I'm on lisinopril, 10mg a day.", ("me", "medication", "lisinopril", True, False)),
    ("My sister is on antibiotics.", ("sister", "medication", "antibiotics", True, False)),
    ("I'm off antidepressants now.", ("me", "medication", "antidepressants", False, True)),
])
def test_an_event_on_a_date_is_its_time_and_one_on_a_medicine_takes_it(text, claim):
    assert claim in claims(text)


@pytest.mark.parametrize(("text", "claim"), [
    ("I have a dentist appointment on Monday at 2pm.", ("dentist appointment", "when", "Monday at 2pm")),
    ("I've got a vet appointment Friday at 10am.", ("vet appointment", "when", "Friday at 10am")),
    ("We have a parent-teacher meeting on March 3 at 4pm.", ("parent-teacher meeting", "when", "March 3 at 4pm")),
    ("I have a dentist appointment at 2pm on Monday.", ("dentist appointment", "when", "2pm on Monday")),
    ("I booked a haircut appointment for Tuesday.", ("haircut appointment", "when", "Tuesday")),
])
def test_an_event_one_has_on_a_day_is_read_with_its_time(text, claim):
    assert claim in {c[:3] for c in claims(text)}


@pytest.mark.parametrize("text", [
    # a bare meeting or call names no one of the speaker's; another's is theirs; a question or a denial says none
    "I have a meeting on Monday at 2pm.", "I have a quick call on Friday at 3pm.",
    "My sister has a dentist appointment on Monday at 2pm.", "Do I have a dentist appointment on Monday?",
    "I don't have a dentist appointment on Monday.", "I have a doctor's appointment on Monday at 9am.",
])
def test_an_event_that_names_none_of_the_speakers_has_no_time_read(text):
    assert not {c for c in claims(text) if c[1] == "when"}


@pytest.mark.parametrize(("old", "new"), [
    ("I have a dentist appointment on Monday at 2pm.", "The dentist appointment moved to Tuesday at 3pm."),
    ("I've got a vet appointment on Friday at 10am.", "We moved the vet appointment to Monday at 9am."),
])
def test_an_event_one_has_on_a_day_is_moved_by_a_new_time(old, new):
    assert verdict(old, new) == "update"


def test_two_events_of_different_kinds_on_two_days_are_two_things():
    assert verdict("I have a dentist appointment on Monday at 2pm.",
                   "I have a haircut appointment on Tuesday at 3pm.") != "update"


@pytest.mark.parametrize("text", [
    "Cancel my gym membership?", "Cancel the trip?", "Ok, so cancel the trip?", "Call off the wedding?",
    "Scrap the offsite?", "Should I cancel the trip?", "Cancel the dentist? I'll rebook if so.",
])
def test_a_question_asks_whether_to_call_a_thing_off_and_states_nothing(text):
    assert not {c for c in claims(text) if c[1] == "status"}


@pytest.mark.parametrize(("text", "subject"), [
    ("Cancel the trip.", "trip"), ("Please cancel my gym membership.", "gym membership"),
    ("Cancel the dentist, I'll rebook.", "dentist"), ("Call off the wedding!", "wedding"),
])
def test_an_instruction_to_call_a_thing_off_still_says_it_is_off(text, subject):
    assert subject in {c[0] for c in claims(text) if c[1] == "status"}


def test_a_move_asked_without_a_subject_states_no_home():
    assert not claims("Moved to Denver?")
    assert ("me", "home", "Denver", True, False) in claims("Moved to Denver last week.")


@pytest.mark.parametrize(("text", "claim"), [
    ("I'm in the risk team at KPMG.", ("me", "employer", "KPMG", True, False)),
    ("Sam works on the growth team at Monzo.", ("sam", "employer", "Monzo", True, False)),
    ("I work in the data team at the BBC.", ("me", "employer", "BBC", True, False)),
    ("I joined a small fintech called Brightpath in May.", ("me", "employer", "Brightpath", True, False)),
    ("We work for an agency named Brightside.", ("me", "employer", "Brightside", True, False)),
])
def test_a_team_at_a_company_or_a_company_named_after_its_kind_is_the_employer(text, claim):
    assert claim in claims(text)


@pytest.mark.parametrize("text", [
    "I'm on the volleyball team at Bristol Uni.", "I joined a band called The Lanterns.",
    "I'm on the football team at Hartley College.",
])
def test_a_team_played_in_or_a_band_joined_is_no_employer(text):
    assert not {c for c in claims(text) if c[1] == "employer"}


def test_a_new_employer_named_after_its_kind_changes_the_team_holders_employer():
    assert verdict("I'm in the risk team at KPMG.",
                   "Not at KPMG anymore. I joined a small fintech called Brightpath in May.") == "update"


@pytest.mark.parametrize(("text", "value"), [
    ("I'm on a Pixel 6a at the moment.", "Pixel 6a"), ("I'm still on an iPhone 12.", "iPhone 12"),
    ("Swapped the Galaxy for a Fairphone 4 last weekend.", "Fairphone 4"),
    ("I traded my old Galaxy in for an iPhone 15.", "iPhone 15"),
])
def test_a_phone_one_is_on_or_swapped_for_is_the_device(text, value):
    assert ("me", "device", value, True, False) in claims(text)


@pytest.mark.parametrize("text", ["I'm on the phone with Sam.", "I'm on a call until noon.", "We're on a Galaxy plan."])
def test_being_on_something_that_is_no_phone_is_no_device(text):
    assert not {c for c in claims(text) if c[1] == "device"}


@pytest.mark.parametrize("text", [
    "We moved to Vue for the frontend.", "We moved to Jenkins for our builds last year.",
    "We moved to Heroku for hosting, and it's been fine.",
])
def test_a_move_made_for_a_part_of_a_software_system_is_no_home(text):
    assert not {c for c in claims(text) if c[1] == "home"}
    facts = BuiltinExtractor().extract(text, ExtractionContext()).facts
    assert not [f for f in facts if f.relation == "lives_in"]


@pytest.mark.parametrize("text", [
    "We moved to Slack.", "We moved to Linear last month.", "We moved to Rails last year.", "We moved to Vue 3.",
    "Tom moved to Sentry for errors.", "My sister moved to Vue.", "We moved to Google Cloud last year.",
    "We moved to Grafana Cloud for dashboards, Datadog was too pricey.", "We moved to Zulip for chat.",
])
def test_a_move_to_a_name_no_gazetteer_holds_that_is_a_common_word_or_numbered_is_no_home(text):
    assert not {c for c in claims(text) if c[1] == "home"}
    facts = BuiltinExtractor().extract(text, ExtractionContext()).facts
    assert not [f for f in facts if f.relation == "lives_in"]


@pytest.mark.parametrize(("text", "value"), [
    ("We moved to England last year.", "England"), ("I moved to NYC in March.", "NYC"),
    ("I moved to the Bay Area.", "Bay Area"), ("We moved to Paris for design school.", "Paris"),
    ("We moved to Phoenix.", "Phoenix"), ("I moved to Reading for work.", "Reading"),
    ("We moved to Slack, into a little house by the river.", "Slack"),
])
def test_a_move_to_a_place_the_word_list_or_gazetteer_knows_or_into_a_home_is_a_home(text, value):
    assert ("me", "home", value, True, False) in claims(text)


@pytest.mark.parametrize(("text", "who", "value"), [
    ("My daughter Alba goes to Greenfield Primary.", "alba", "Greenfield Primary"),
    ("Alba started at Northgate Secondary this September.", "alba", "Northgate Secondary"),
    ("Alba moved up to Northgate Secondary.", "alba", "Northgate Secondary"),
    ("My son goes to Kings Grammar.", "son", "Kings Grammar"),
])
def test_a_pupils_school_by_its_british_name_is_the_school_and_no_job_or_home(text, who, value):
    read_claims = claims(text)
    assert (who, "school", value, True, False) in read_claims
    assert not {c for c in read_claims if c[1] in ("employer", "home")}


@pytest.mark.parametrize(("old", "new"), [
    ("The team lead is Marta Kowalski.", "Jonas Weber is our new team lead."),
    ("Our team lead is Marta Kowalski.", "Jonas Weber took over as team lead from Marta."),
    ("My manager is Marta.", "Jonas Weber has taken over as team lead."),
])
def test_a_new_team_lead_changes_the_manager(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["The manager is rude.", "The team lead said no.", "The team is great."])
def test_a_manager_or_a_team_said_of_in_passing_is_no_manager(text):
    assert not {c for c in claims(text) if c[1] == "manager" or c[1].startswith("np:")}


@pytest.mark.parametrize(("text", "thing", "day"), [
    ("I swim on Mondays.", "swimming", "Mondays"), ("We climb every Friday.", "climbing", "every Friday"),
    ("I swim at the Leisure Centre on Mondays and Wednesdays.", "swimming", "Mondays"),
    ("I ski on Sundays.", "skiing", "Sundays"),
    ("I cycle every Saturday morning.", "cycling", "every Saturday morning"),
])
def test_a_pastime_kept_by_doing_it_on_a_weekday_is_its_gerunds_day(text, thing, day):
    assert (thing, "when", day, True, False) in claims(text)


@pytest.mark.parametrize(("old", "new"), [
    ("I swim on Mondays.", "Swimming's moved to Tuesdays."),
    ("I go climbing on Tuesdays.", "Climbing's moved to Mondays."),
    ("I run every Saturday.", "Running moved to Sundays."),
])
def test_a_pastimes_day_moved_changes_the_day_however_the_pastime_was_said(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["I run to the shop on Mondays.", "Tom's moved to Mondays.", "I swim."])
def test_an_errand_a_persons_move_or_a_pastime_without_a_day_has_no_day(text):
    assert not {c for c in claims(text) if c[1] == "when"}


@pytest.mark.parametrize(("old", "new"), [
    ("I'm paying £1,150 a month in rent.", "Landlord's put the rent up to £1,240."),
    ("I pay $1,800 a month in rent.", "I'm now paying $2,000 a month for rent."),
])
def test_a_rent_put_up_or_now_paid_changes_the_rent(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", [
    "I've accepted an offer from Quillon, starting in January.",
    "I accepted an offer from Quillon and start next month.",
])
def test_a_job_that_starts_later_is_not_held_yet(text):
    assert not {c for c in claims(text) if c[1] == "employer"}


def test_a_job_started_in_a_month_past_is_held():
    assert ("me", "employer", "Quillon", True, False) in claims("I started at Quillon in January.")


@pytest.mark.parametrize(("old", "new"), [
    ("We use Datadog for monitoring.", "We moved to Grafana Cloud for monitoring, Datadog was too pricey."),
    ("I use VS Code for coding.", "I moved to Neovim for coding."),
])
def test_a_move_to_a_tool_for_a_purpose_replaces_the_one_used_for_it(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("I take levothyroxine 50mcg each morning.", "My levothyroxine went up to 75mcg after the blood test."),
    ("I take metformin 500mg twice daily.", "My metformin got bumped up to 1000mg."),
    ("My dad, Harold, lives in Cardiff.", "Dad moved in with us on Saturday."),
    ("I live in Leeds.", "I moved in with Sam last month."),
])
def test_a_dose_moved_or_a_move_in_with_someone_changes_the_slot(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("Our paediatrician is Dr. Osei.", "We changed paediatricians; Leo sees Dr. Brennan now."),
    ("My dentist is Dr. Hollis.", "I switched dentists."),
    ("I bank with Starling.", "I've changed banks, I'm with Monzo now."),
    ("Our pediatrician is Dr. Osei.", "Our new paediatrician is Dr. Brennan."),
])
def test_a_carer_or_bank_changed_by_its_kind_ends_the_one_held(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("My supervisor is Professor Alan Reid.", "Dr. Fiona Kerr supervises me now."),
    ("My manager is Tom.", "Dana manages us now."),
    ("My coach is Mark.", "Mark's stepped back, so Priya coaches me now."),
    ("Our energy supplier is Octopus.", "We moved our energy to British Gas."),
    ("Our electricity is with EDF.", "We switched our energy supplier to Octopus."),
    ("I do my long run on Sundays.", "Long runs are on Saturdays now."),
    ("We do a group ride every Sunday.", "The group ride is on Saturdays now."),
    ("Our vet is Hillside Vets.", "We moved Bramble to a vet closer to home, Meadow Vets."),
    ("My GP is Dr. Hallworth.", "I moved to a new GP, Dr. Patel, last month."),
    ("My running shoes are Nike Pegasus.", "I've switched to Hoka Cliftons."),
    ("My headphones are Sony WH-1000XM5.", "My headphones are AirPods Max now."),
    ("My GP is Dr. Hallworth at Riverside Surgery.", "Registered with the Elm Grove practice after the move."),
    ("My GP surgery is Riverside Medical Centre.", "We registered with Elm Grove Surgery after the move."),
    ("Our vet is Dr. Ruiz.", "We registered with Hillside Vets."),
])
def test_a_role_said_by_its_verb_an_energy_supplier_or_a_weekly_run_changes(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("My manager is Tom.", "She supervises me."),                       # no one named
    ("My manager is Tom.", "Dana manages us on the Q3 project."),        # a project's, not the speaker's
    ("My coach is Mark.", "Priya coaches the kids."),                   # someone else's coach
    ("My coach is Mark.", "I've switched to Hoka Cliftons."),           # a thing, not a person in the role
    ("My long run is on Sundays.", "We had a good run this year."),
    ("My long run is on Sundays.", "The farmers market runs Saturdays from 8 to noon."),
    ("I live in Leeds.", "I moved to a new GP, Dr. Patel, last month."),   # a carer is no home
    ("My running shoes are Nike Pegasus.", "My kids are Tom and Ann."),    # a plural of no one thing
    ("My dentist is Dr. Hollis.", "We registered with Elm Grove Surgery."),  # a GP's practice, not a dentist
    ("My GP is Dr. Hallworth.", "I registered with Uber."),
])
def test_a_role_verb_of_no_one_or_a_thing_switched_to_changes_no_role(old, new):
    assert verdict(old, new) != "update"


@pytest.mark.parametrize(("old", "new"), [
    ("My dentist is Dr. Hollis.", "We changed paediatricians last year."),  # another kind of carer
    ("I bank with Starling.", "I switched banks to Starling years ago and stayed."),  # the same one
])
def test_a_carer_changed_by_its_kind_leaves_the_others(old, new):
    assert verdict(old, new) != "update"


def test_someone_moving_in_with_the_speaker_leaves_the_speakers_home():
    assert verdict("I live in Leeds.", "Sam moved in with me.") != "update"


@pytest.mark.parametrize(("old", "new"), [
    ("We open at 7am on weekdays.", "We open at 6:30 now, commuters wanted earlier coffee."),
    ("The shop closes at 6pm.", "The shop closes at 5 now."),
])
def test_a_new_opening_or_closing_hour_changes_it(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["We opened at 7am.", "The door opens at 7am.", "I open at 7am."])
def test_an_opening_once_or_of_no_place_of_ours_has_no_hour(text):
    assert not {c for c in claims(text) if c[1] == "when"}


@pytest.mark.parametrize(("old", "new"), [
    ("I'm learning Arabic on Tuesdays.", "Arabic's moved to Thursdays."),
    ("We live in a terraced house in Sheffield.", "We sold the terrace and bought a semi in Rotherham."),
    ("My husband Idris works as a paramedic.", "Idris qualified as a nurse practitioner last month."),
])
def test_a_class_day_a_home_bought_or_a_role_qualified_for_changes_the_slot(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["I'm taking Tom on Tuesdays.", "I'm taking it on Mondays."])
def test_taking_someone_or_something_on_a_day_is_no_class(text):
    assert not {c for c in claims(text) if c[1] == "when"}


@pytest.mark.parametrize(("text", "value", "kind"), [
    ("We switched broadband to Hyperoptic, BT was too slow.", "Hyperoptic", "internet"),
    ("We switched gas suppliers to Octopus.", "Octopus", "gas"),
])
def test_a_service_switched_without_its_owner_said_is_the_provider(text, value, kind):
    assert [(c.value, c.qualifier) for c in read(text).claims if c.attribute == "provider"] == [(value, kind)]


def test_a_school_started_at_for_a_job_is_the_employer():
    assert ("me", "employer", "Westbrook High", True, False) in claims("I started at Westbrook High as a teacher.")


@pytest.mark.parametrize("text", [
    "I never left Google.", "I haven't quit climbing.", "I never stopped loving Austin.", "I've never quit smoking.",
])
def test_an_end_denied_ends_nothing(text):
    assert not {c for c in claims(text) if not c[3]}


def test_a_departure_denied_is_no_change_of_employer():
    assert verdict("I work at Google as a designer.", "I never left Google, whatever the rumours say.") != "update"


@pytest.mark.parametrize("text", [
    "I stopped by Sam's place on Tuesday.", "I stopped in at the bakery.", "I stopped off at the shops.",
    "I stopped for coffee.", "I stopped to think.", "I left early.", "I left for Paris on Friday.",
])
def test_a_stop_on_the_way_or_a_departure_gives_up_nothing(text):
    assert not {c for c in claims(text) if c[1] == "activity"}


@pytest.mark.parametrize(("text", "value"), [
    ("I stopped climbing.", "climbing"), ("I quit the choir.", "choir"), ("I gave up on Spanish.", "Spanish"),
])
def test_a_pastime_stopped_is_still_read(text, value):
    assert ("me", "activity", value, False, True) in claims(text)


@pytest.mark.parametrize(("text", "value"), [
    ("We moved to Denver for the schools.", "Denver"), ("We moved to Boston for the new app job.", "Boston"),
    ("We moved to Portland, into a house, for the new app.", "Portland"),
])
def test_a_move_made_for_anything_else_or_into_a_home_is_a_home(text, value):
    assert ("me", "home", value, True, False) in claims(text)


@pytest.mark.parametrize(("text", "value"), [
    ("New email: ana.k@globex.com", "ana.k@globex.com"), ("Update: new work email: ana@globex.com", "ana@globex.com"),
    ("Got a new e-mail address: x@y.io", "x@y.io"),
])
def test_a_note_that_opens_with_a_new_email_is_the_speakers_email(text, value):
    assert ("me", "email", value, True, False) in claims(text)


def test_someone_elses_new_email_is_not_the_speakers():
    assert not [c for c in claims("My sister's new email: s@y.io") if c[0] == "me"]


@pytest.mark.parametrize(("old", "new"), [
    ("I'm based in London.", "I'm in Berlin now, moved last spring."),
    ("I'm a nurse at St. Mary's.", "I just started a new job as a paramedic."),
    ("Our standup is at 9:30.", "Standup is at 10 now."),
    ("I'm allergic to cats.", "My cat allergy is gone after the shots."),
    ("My wifi password is sunflower.", "Changed the wifi password to tulip42."),
    ("The door code is 4411.", "The door code is now BLUEJAY."),
])
def test_a_change_said_as_one_says_it_in_passing_changes_the_slot(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", [
    "I'm in Paris now for the conference, moved my flight.", "I'm in Paris now.",
    "I started a new job as soon as I could.", "My hay fever allergy is bad this week.",
])
def test_a_stay_a_time_word_or_a_state_of_an_allergy_changes_nothing(text):
    assert not {c for c in claims(text) if c[1] in ("home", "role", "allergy")}


@pytest.mark.parametrize(("old", "new"), [
    ("I'm dating Sam.", "I stopped dating Sam."),
    ("I work at Dell.", "I stopped working at Dell."),
    ("My therapist is Dr. Kim.", "I stopped seeing Dr. Kim."),
    ("My salary is $90k.", "Got a raise to $105k."),
    ("Our team has 12 engineers.", "The team's grown to 15 engineers."),
    ("Dad works at Ford.", "Dad retired from Ford last month."),
])
def test_a_thing_given_up_or_grown_in_passing_changes_the_slot(old, new):
    assert verdict(old, new) == "update"


def test_a_doctor_one_sees_is_no_partner():
    assert not [c for c in claims("I quit seeing Dr. Kim.") if c[1] == "partner"]
    assert not [c for c in claims("I am seeing Dr. Kim for my back.") if c[1] == "partner"]
    assert ("me", "partner", "Sam", True, False) in claims("I am seeing Sam.")


@pytest.mark.parametrize(("text", "subjects"), [
    ("Tom and Ana moved to Lisbon.", {"tom", "ana"}), ("Tom and I moved to Lisbon.", {"tom", "me"}),
    ("Jon and Gina work at Acme.", {"jon", "gina"}),
    # one that is no given name is not joined
    ("Salt and Pepper moved to Lisbon.", {"pepper"}),
])
def test_a_person_joined_to_the_subject_by_and_holds_the_value_too(text, subjects):
    assert {c[0] for c in claims(text) if c[1] in ("home", "employer")} == subjects


@pytest.mark.parametrize(("old", "new"), [
    ("I sleep around 11pm.", "I've been going to bed at 10 lately."),
    ("My morning run is 5k.", "I've upped my morning run to 8k."),
    ("The thermostat is set to 70.", "I lowered the thermostat to 66."),
])
def test_a_setting_raised_or_lowered_or_a_bedtime_said_lately_changes_it(old, new):
    assert verdict(old, new) == "update"


@pytest.mark.parametrize("text", ["I bumped my head on the door.", "We cut the cake at 5.", "I raised my hand."])
def test_raising_or_cutting_what_is_no_setting_reads_nothing(text):
    assert not claims(text)
