"""Supersession and contradiction as an agent meets them: plain memory_write calls through the
real MCP client, with the default embedding model, then memory_recall / memory_read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from mcp import Client

from worlddb.server import ServerConfig, build_server

from .helpers import fails, ok


def ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).isoformat()


@pytest.fixture(scope="module")
def minilm_server(tmp_path_factory):
    """The server as `worlddb serve --default-user alice` runs it: default flags, real model."""
    return build_server(ServerConfig(db=str(tmp_path_factory.mktemp("updates") / "memory.db"), default_user="alice",
                                     background=False))


SCENARIOS = [
    # a pet by its name alone, in a text that says nothing of pets
    ("pet-by-name", "I have a dog named Rex.", "Rex passed away.", "What pets do I have?", "Rex"),
    ("pet-put-down", "I have a dog named Rex.", "We had to put Rex down last week.", "What pets do I have?", "Rex"),
    ("pet-fact", "Rex is my dog.", "Rex passed away.", "What pets do I have?", "Rex"),
    # a pet whose name is also a word ("biscuit"), said to have died in the speaker's lower case
    ("pet-word-name", "I have a dog named Biscuit.", "sadly Biscuit passed away last week",
     "What pets do I have?", "Biscuit"),
    # a change of jobs that names the new one
    ("switched-jobs", "I work at Acme.", "I switched jobs to Globex.", "Where do I work?", "Globex"),
    # a replacement naming the value it leaves, which the old memory holds in a slot of the catalogue
    ("spanish", "I'm learning Spanish.", "I switched from Spanish to Italian.", "What language am I learning?",
     "Italian"),
    # a note that opens with a new number the speaker got
    ("got-number", "My phone number is 503-555-0101.", "Got a new phone number: 503-555-0777.",
     "What is my phone number?", "503-555-0777"),
    ("austin", "I live in Austin, Texas.", "I moved to Denver last month.", "Where do I live?", "Denver"),
    # a dose changed in the words that say the medicine again
    ("dose", "I started taking lisinopril 10mg once a day.", "I'm now on 20mg of lisinopril instead of 10mg.",
     "What is my lisinopril dose?", "20mg"),
    # a supplement stopped; a company moved to is a new job
    ("vitamin-d", "I take vitamin D 2000 IU every morning.", "I stopped taking vitamin D.", "Do I take vitamin D?",
     "stopped"),
    ("moved-company", "Priya Natarajan works at Initech.", "Priya Natarajan moved to Umbrella Corp.",
     "Where does Priya Natarajan work?", "Umbrella Corp"),
    ("peanuts", "I'm allergic to peanuts.", "Actually I'm not allergic to peanuts anymore after the treatment.",
     "Am I allergic to peanuts?", "anymore"),
    ("editor", "My favourite editor is Vim.", "I switched my favourite editor to Helix.",
     "What is my favourite editor?", "Helix"),
    # open slots: attributes outside the catalogue (worlddb/extract/open_slots.py)
    ("sarah", "Sarah prefers tea.", "Sarah prefers coffee now.", "What does Sarah prefer to drink?", "coffee"),
    ("wifi", "Our wifi password is sunflower42.", "We changed the wifi password to moonbeam7.",
     "What is the wifi password?", "moonbeam7"),
    ("neovim", "I use VS Code as my editor.", "I switched to Neovim.", "Which editor do I use?", "Neovim"),
    # changes said in few words
    ("now-at", "I work at Dell as a sales engineer.", "I'm now at Stripe.", "Where do I work?", "Stripe"),
    ("switched-at-now", "I work at Dell.", "I switched jobs, I'm at Meta now.", "Where do I work?", "Meta"),
    ("new-number", "My cell number is 555-201-3344.", "New number: 555-0199.", "What is my phone number?",
     "555-0199"),
    ("thermostat", "The thermostat is set to 70.", "We set the thermostat to 68.", "What is my thermostat set to?",
     "68"),
    ("gym", "My gym is Planet Fitness.", "I cancelled Planet Fitness and joined Equinox.", "What is my gym?",
     "Equinox"),
    ("dentist", "My dentist is Dr. Patel.", "I found a new dentist, Dr. Kim.", "Who is my dentist?", "Kim"),
    ("budget", "My budget is about 3000 dollars.", "My budget went up to 4000 dollars.", "What is my budget?",
     "4000"),
    # a count of one kind, a setting asked for, a fee set, a job taken after "and", a goal as a heading
    ("dogs", "We have two dogs.", "We have three dogs now.", "How many dogs do we have?", "three"),
    ("set-ac", "The air conditioner is set to 74.", "Set the air conditioner to 71.",
     "What is the air conditioner set to?", "71"),
    ("dues", "Our club dues are $90 a year.", "The club dues are set to $120 a year.", "How much are our club dues?",
     "$120"),
    ("and-got", "I work at Intel as a tester.", "I quit Intel and got a job at Nvidia.", "Where do I work?", "Nvidia"),
    ("goal", "My goal this year is to run a 10K.", "New goal: a full marathon by October.", "What is my goal?",
     "full marathon"),
    # a job held for a span, a tool switched without its purpose, a partner left by the word for one,
    # a skill being learnt given up
    ("been-at", "I work at Google as a software engineer.", "I've been at Stripe since March.", "Where do I work?",
     "Stripe"),
    ("for-coding", "I use VS Code for coding.", "I switched to Neovim.", "What do I use for coding?", "Neovim"),
    ("separated", "I'm married to Tom.", "I've separated from my husband.", "Who is my partner?", "separated"),
    ("gave-up", "I'm learning Spanish.", "I gave up on Spanish.", "What language am I learning?", "gave up"),
    # an age, a meeting moved to a bare hour, a preference switched
    ("bare-hour", "Our team standup is at 9:30 every morning.", "Standup got moved to 10.", "When is standup?", "10"),
    # a contact given to use from now on; a race trained for, dropped
    ("use-email", "My email is alice@old.example.", "Please use alice@new.example from now on.",
     "What is my email?", "alice@new.example"),
    ("no-marathon", "I'm training for the Boston marathon in April.", "I hurt my knee, so no marathon this year.",
     "What am I training for?", "no marathon"),
    # a project's facts, as a coding assistant keeps them
    ("frontend", "The frontend is written in React.", "We rewrote the frontend in Svelte.",
     "What is the frontend written in?", "Svelte"),
    ("ci", "Our CI runs on GitHub Actions.", "We moved CI to Buildkite.", "What do we use for CI?", "Buildkite"),
    ("swim-day", "I swim at the leisure centre on Mondays and Wednesdays.",
     "Swimming's moved to Tuesdays and Thursdays since the pool refit.", "When do I swim?", "Tuesdays"),
    ("team-lead", "The team lead is Marta Kowalski.", "Jonas Weber took over as team lead from Marta.",
     "Who is the team lead?", "Jonas"),
    ("api-url", "The API base URL is https://api.old.example.com.",
     "The API base URL changed to https://api.new.example.com.", "What is the API base URL?", "api.new"),
    ("deploys", "We deploy on Tuesdays.", "Deploys are on Thursdays now.", "When do we deploy?", "Thursdays"),
    # a detail after the value; a pet ended by its name; a subject left out; a bank by the word for one;
    # a negation of what the old memory calls its value
    ("api-host", "The API is hosted on Heroku, two standard dynos.",
     "We moved the API from our old host onto Fly.io this weekend.", "Where is the API hosted?", "Fly.io"),
    ("lost-pet", "Our beagle Biscuit is twelve now.",
     "After we lost Biscuit in the spring we brought home a greyhound called Pepper.", "What kind of dog do I have?",
     "greyhound"),
    ("traded", "I drive a 2014 Honda Civic.", "Traded the old car in for a Mazda CX-5.", "What car do I drive?",
     "Mazda"),
    ("old-bank", "I bank with Chase.", "I'm done with my old bank; everything's at Ally now.", "Which bank do I use?",
     "Ally"),
    ("law-firm", "I'm a paralegal at Whitman & Hale, a corporate law firm.",
     "I no longer work at the law firm; I'm at the public defender's office now.", "Where do I work?",
     "public defender"),
    # an old thing still held, a reflexive buyer; "he's a"; a dated opening; a count an addition
    # reaches; a first week where the text speaks of work
    ("still-old", "Piotr still drives his old Skoda Octavia.",
     "Piotr sold the Skoda and bought himself a Toyota Yaris.", "What car does Piotr drive?", "Yaris"),
    ("as-of", "The docs site is hosted on Netlify.", "As of Monday the docs site lives on Vercel.",
     "Where is the docs site hosted?", "Vercel"),
    ("makes-three", "We have two cats.", "Took in a stray last week, which makes three cats.",
     "How many cats do we have?", "three"),
    ("first-week", "I work at Barclays as an analyst.", "First week at Revolut done; my manager is lovely.",
     "Where do I work?", "Revolut"),
    # a note of the weight reached, and a question of how much one weighs
    ("weight-note", "I weigh 82 kg.", "Down to 78 kg now!", "How much do I weigh?", "78"),
    # a pet's age is the pet's, asked of "my dog"
    ("dog-age", "My dog is 4 years old.", "My dog turned 5 last week.", "How old is my dog?", "5"),
    # a name beside the role it holds; the car that took the place of "my last car"
    ("appositive", "My manager is Ines.", "Had a long talk with Tobias, my manager since the reorg.",
     "Who is my manager?", "Tobias"),
    ("last-car", "I drive a Ford Fiesta.", "My Kia Niro gets twice the mileage my previous car did.",
     "What car do I drive?", "Niro"),
    # the team one works in
    ("team", "I'm on the payments team.", "I joined the search team last month.", "Which team am I on?", "search"),
    # a home named past the street it is on
    ("street", "I live in a flat on Elm Street in Portland.", "We moved to a house on Oak Avenue in Beaverton.",
     "Where do I live?", "Beaverton"),
    # the car one drives now; a phone by its make, however it is said; another's new job "is at" a company
    ("drive-now", "I drive a Honda Civic.", "I drive a Tesla now.", "What car do I drive?", "Tesla"),
    ("phone-make", "My phone is an iPhone 12.", "I switched to a Pixel 8.", "What phone do I have?", "Pixel"),
    ("job-is-at", "My brother works at Boeing.", "My brother's new job is at Airbus.", "Where does my brother work?",
     "Airbus"),
    # a class kept every week, and the day it moved to
    ("yoga-day", "I have yoga every Monday at 6pm.", "Yoga moved to Tuesdays at 7pm.", "When is my yoga class?",
     "Tuesdays"),
    ("book-club", "The book club meets on the first Friday of the month.",
     "Book club now meets on the second Saturday.", "When does the book club meet?", "second Saturday"),
    # an agent's note of the user in the third person is about the one who says "I"
    ("user-note", "I live in Austin.", "The user moved to Denver.", "Where does the user live?", "Denver"),
    ("user-note-first", "The user works at Google.", "I work at Stripe now.", "Where do I work?", "Stripe"),
    # a thing called off has no time any more
    ("offsite-off", "The team offsite is on Friday.", "The team offsite got cancelled.", "When is the team offsite?",
     "cancelled"),
    ("club-off", "The book club meeting is on Thursday.", "We called off the book club meeting.",
     "When is the book club meeting?", "called off"),
    # a role one person holds at a time, taken over by another, asked for with "who"
    ("tech-lead", "Our tech lead is Omar Haddad.", "Priya Nair has taken over as tech lead.", "Who is our tech lead?",
     "Priya Nair"),
    ("new-cto", "Our CTO is Dana Lee.", "Sam Whitfield is our new CTO.", "Who is the CTO?", "Sam Whitfield"),
    # a note that opens with a new address, as one jots it down
    ("email-note", "My email is ana@acme.com.", "New email: ana.k@globex.com", "What is my email?",
     "ana.k@globex.com"),
    # changes said in passing: a home one is in now, a job taken, a time, an allergy gone, a password
    ("in-berlin-now", "I'm based in London.", "I'm in Berlin now, moved last spring.", "Where am I based?", "Berlin"),
    ("new-job-as", "I work as a nurse.", "I just started a new job as a paramedic.", "What do I do for work?",
     "paramedic"),
    ("standup-now", "Our standup is at 9:30.", "Standup is at 10 now.", "When is standup?", "10 now"),
    ("allergy-gone", "I'm allergic to cats.", "My cat allergy is gone after the shots.", "Am I allergic to cats?",
     "gone"),
    ("password-word", "My Wi-Fi password is sunflower.", "Changed the Wi-Fi password to tulip42.",
     "What's the wifi password?", "tulip42"),
    # two people named as one subject: the first moved too
    ("pair-moved", "Tom lives in Porto.", "Tom and Ana moved to Lisbon last month.", "Where does Tom live?",
     "Lisbon"),
    # a carer or a bank changed by its kind, the new one named after it, if at all
    ("paediatrician", "Our paediatrician is Dr. Osei.", "We changed paediatricians; Leo sees Dr. Brennan now.",
     "Who is Leo's paediatrician?", "Brennan"),
    ("changed-banks", "I bank with Starling.", "I've changed banks, I'm with Monzo now.", "Which bank do I use?",
     "Monzo"),
    # a supplier of energy; a role said by its verb; a weekly run given another day
    ("energy", "Our energy supplier is Octopus.", "We moved our energy to British Gas.", "Who is our energy supplier?",
     "British Gas"),
    ("coaches-me", "My coach is Mark.", "Mark's stepped back, so Priya coaches me now.", "Who is my coach?", "Priya"),
    ("supervises-me", "My supervisor is Professor Alan Reid.", "Dr. Fiona Kerr supervises me now.",
     "Who is my supervisor?", "Kerr"),
    ("long-run", "I do my long run on Sundays.", "Long runs are on Saturdays now.", "When is my long run?",
     "Saturdays"),
    # a carer moved to, for whoever is taken there
    ("vet-moved", "Our vet is Hillside Vets.", "We moved Bramble to a vet closer to home, Meadow Vets.",
     "Who is our vet?", "Meadow Vets"),
    # a thing named in the plural ("my running shoes are ..."), switched from
    ("shoes", "My running shoes are Nike Pegasus.", "I've switched to Hoka Cliftons, my knees are much happier.",
     "What shoes do I run in?", "Hoka"),
    ("registered", "My GP surgery is Riverside Medical Centre.", "We registered with Elm Grove Surgery after the move.",
     "Which GP surgery am I with?", "Elm Grove"),
]


@pytest.mark.parametrize(("user", "old", "new", "question", "value"), SCENARIOS)
async def test_a_plain_write_of_a_change_supersedes_what_it_changes(minilm_server, user, old, new, question, value):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(120))
        await ok(client, "memory_write", text="The office coffee machine broke again.", user_id=user,
                 valid_from=ago(60))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["superseded"] == [first["id"]] and second["duplicate_of"] is None
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert value in hits[0]["text"] and hits[0]["supersedes"] == [first["id"]]
        assert first["id"] not in [h["id"] for h in hits]
        history = (await ok(client, "memory_recall", query=question, user_id=user, include_retired=True))["results"]
        stale = next(h for h in history if h["id"] == first["id"])
        assert stale["superseded_by"] == [second["id"]] and stale["valid_to"] is not None
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["superseded_by"] == [second["id"]]


#: a change of someone the old memory says who they are to the speaker: it changes that memory in part
INTRODUCED = [
    ("sister-moved", "My sister Maria lives in Seattle.", "Maria moved to Portland.", "Where does Maria live?",
     "Portland", "has_sister"),
    ("sister-unnamed", "My sister Maria lives in Seattle.", "My sister moved to Portland.",
     "Where does my sister live?", "Portland", "has_sister"),
    ("age", "My daughter Mia is 7.", "Mia just turned 8!", "How old is Mia?", "8", "has_daughter"),
    ("prefers", "My coworker Raj prefers Python.", "Raj has switched to Go for everything.",
     "What language does Raj prefer?", "Go", "has_coworker"),
    ("hes-a", "My brother Karim is a chef in Lyon.", "Karim quit cooking. He's a food photographer now.",
     "What does Karim do for a living?", "photographer", "has_brother"),
    ("moved-in", "My dad, Harold, lives in Cardiff.", "Dad moved in with us on Saturday.", "Where does my dad live?",
     "moved in with us", "has_dad"),
    ("school", "My daughter Alba goes to Greenfield Primary.", "Alba started at Northgate Secondary this September.",
     "Where does my daughter go to school?", "Northgate", "has_daughter"),
]


@pytest.mark.parametrize(("user", "old", "new", "question", "value", "relation"), INTRODUCED)
async def test_a_change_of_someone_the_old_memory_introduces_keeps_who_they_are(minilm_server, user, old, new,
                                                                                   question, value, relation):
    # "Maria moved to Portland" leaves Maria the speaker's sister: the old memory is changed in
    # part, stays current and marked, and the fact of who she is stays current with it
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(120))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["revised"] == [first["id"]] and second["superseded"] == []
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert value in hits[0]["text"] and hits[0]["annotations"]["revises"] == [first["id"]]
        stale = [h for h in hits if h["id"] == first["id"]]
        assert all(h["annotations"]["revised_by"] == [second["id"]] for h in stale)
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [second["id"]]
        assert [f["valid_to"] for f in read["facts"] if f["relation"] == relation] == [None]


@pytest.mark.parametrize(("user", "old", "new", "kept"), [
    ("u-jazz", "I like jazz and I work at Dell.", "I now work at Google.", ("likes", "jazz")),
    ("u-ohio", "I'm from Ohio and I work at Dell.", "I now work at Google.", ("from", "Ohio")),
    ("u-club", "I joined a book club and I live in Austin.", "I moved to Denver.", ("member_of", "book club")),
])
async def test_what_a_fact_of_the_old_memory_says_besides_the_change_stays_current(minilm_server, user, old, new,
                                                                                   kept):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(120))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["revised"] == [first["id"]] and second["superseded"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [second["id"]]
        assert [f["valid_to"] for f in read["facts"] if (f["relation"], f["object"]) == kept] == [None]


OPEN_CONTROLS = [
    # a relative by marriage or by one parent is not the relative of the same name
    ("in-law", "My sister Maria lives in Seattle.", "My sister-in-law Maria lives in Denver."),
    ("step", "My brother Tom works at Boeing.", "My stepbrother Tom works at Microsoft."),
    # someone else who shares a surname or a first name with the one who moved
    ("surname", "Alice Smith lives in Austin.", "Robert Smith moved to Denver."),
    ("first-name", "Tom Baker lives in Austin.", "Tom Hanks moved to Denver."),
    # a role held before is no change of the one held now
    ("past-role", "I'm a teacher.", "I was a nurse."),
    # a death of someone of another name, or of a person, ends no pet and no person's facts
    ("died-other", "I have a dog named Rex.", "Tom died in 1990."),
    ("died-person", "My neighbour Tom lives in Leeds.", "Tom died in 1990."),
    ("guest", "Our wifi password is sunflower42.", "The guest wifi password is tulip99."),
    ("places", "I use VS Code at work.", "I switched to Neovim at home."),
    ("people", "Sarah prefers tea.", "Tom prefers coffee."),
    ("kinds", "Sarah prefers tea.", "Sarah prefers aisle seats now."),
    # a relative's new job is not the user's, nor is a job whose holder the text never names
    ("sister", "I work at Dell as a sales engineer.", "My sister got a new job at Kestrel."),
    ("she", "I work at Dell as a sales engineer.", "She just got a job at Kestrel."),
    # a move to a tool named by a common word is no home; a departure denied or a stop on the way
    # ends nothing
    ("tool-move", "I live in Austin, Texas.", "We moved to Linear last month."),
    ("cloud-move", "I live in Pittsburgh with my partner Dana.", "We moved to Grafana Cloud for dashboards."),
    # a change still to come leaves what holds now current
    ("offer-later", "I work remotely for Halden Systems as a data engineer.",
     "I've accepted an offer from Quillon, starting in January."),
    ("next-quarter", "Our warehouse is BigQuery.", "We're moving the warehouse to Snowflake next quarter."),
    ("never-left", "I work at Google as a designer.", "I never left Google, whatever the rumours say."),
    ("nothing-changed", "I'm a PhD student at Edinburgh.", "I'm still at Edinburgh, nothing changed there."),
    # a thing switched to is no person in a role
    ("shoes-not-coach", "My coach is Mark.", "I've switched to Hoka Cliftons, my knees are much happier."),
    ("stopped-by", "I go climbing on Tuesdays.", "I stopped by Sam's place on Tuesday."),
    # a plan or a wish is no move
    ("plan", "I live in Austin, Texas.", "I'm thinking about moving to Denver next year."),
    # a home or a job held once is not the one held now
    ("past", "I live in Austin, Texas.", "I used to live in Denver."),
    # an account with a service is no bank; a sister's school is not the user's
    ("netflix", "I bank with Chase.", "I opened an account at Netflix."),
    # a sister and someone known from work are two people, whatever their first names
    ("two-annas", "My sister Anna lives in Vienna and is a doctor.",
     "Anna from work sits next to me; she's a designer on the payments team."),
    # a team played in is not the one worked in
    ("volleyball", "I'm on the payments team.", "I joined the volleyball team at the gym."),
    # a way to work taken once is no new habit
    ("once-bus", "I bike to work.", "I took the bus to work this morning, it was pouring."),
    ("sister-school", "I'm a junior at UCLA.", "My sister is a senior at UCLA."),
    ("old", "I work at Dell as a sales engineer.", "My old job at Google was boring."),
    ("summer", "I work at Dell as a sales engineer.", "I worked at Google for a summer internship in 2015."),
    ("trip", "I use Firefox as my browser.", "I went to Denver last week."),
    # a hope is no move; a name joined to "my boss" is not the boss; a trip is no new job
    ("hope", "I live in Austin, Texas.", "I hope we live in Denver by June."),
    ("boss-and", "My boss is Linda Park.", "My boss and Tom went to lunch."),
    ("heathrow", "I work at Dell as a sales engineer.", "I'm now at Heathrow waiting for my flight."),
    ("left-at", "I work at Dell as a sales engineer.", "I left Dell at 6 today."),
    # a tool taken up for a purpose is no new home
    ("tool", "I live in Austin, Texas.", "I've moved over to Neovim for coding."),
    # a change said for the future has not happened: the old value holds until it does
    ("future-move", "I live in Austin, Texas.", "We're relocating to Boise in three weeks."),
    ("future-job", "I work at Dell as a sales engineer.", "I'm going to start at Kestrel in June."),
    ("future-season", "I live in Toronto, near High Park.", "We're moving to Montreal in the spring."),
    ("future-month", "I work at Dell as a sales engineer.", "I'm starting at Kestrel in January."),
    # a product given up for another is no job left
    ("product", "I work at Hulu as an editor.", "I quit Hulu and got YouTube TV instead."),
    # another person's move, however the sentence opens
    ("friend-sally", "I live in Austin, Texas.", "Sally moved to Denver."),
    ("yesterday-tom", "I live in Austin, Texas.", "Yesterday Tom moved to Paris."),
    # another pet's name; a stay somewhere
    ("other-pet", "Our beagle Biscuit is twelve.", "We lost Pepper at the dog park for an hour."),
    ("stay", "I live in Lisbon.", "I'm in Paris this week."),
    # a change no rule reads marks the nearest memory, but not after news, a visit or another's change
    ("unread-visit", "I live in Lisbon, up in the Graca neighbourhood.",
     "Just got back from four days in Krakow for a conference; I moved my flight twice."),
    ("unread-news", "I teach fourth grade at Oak Hill Elementary.", "Our school has a new principal."),
    ("unread-other", "I play bass in a wedding cover band.", "My wife switched from piano to cello."),
    # another person of the same first name, named in full where the clause opens
    ("two-alexes", "Alex Kim works at Initech.", "Alex Morgan is a customer who works at Globex."),
    # another person's flight, by name
    ("jens-flight", "Jen's flight is on June 3.", "Sam's flight is on June 5."),
    ("my-flight", "Jen's flight is on June 3.", "My flight is on June 5."),
    # a second car; another's car; another's class; a class moved for one week only
    ("second-car", "I drive a Honda Civic.", "We just got a second car, a Tesla."),
    ("wife-car", "I drive a Honda Civic.", "My wife now drives a Tesla."),
    ("sister-yoga", "I have yoga every Monday at 6pm.", "My sister has yoga every Tuesday."),
    ("yoga-once", "I have yoga every Monday at 6pm.", "This week yoga is on Tuesday because of the holiday."),
    ("club-once", "The book club meets on the first Friday of the month.",
     "This month book club is on the second Friday because of the holiday."),
    # news of someone an old memory names: about them, not who they are to the user
    ("news-carla", "My best friend is Carla Mendes.", "Carla moved to Berlin."),
    ("news-ana", "My sister's name is Ana.", "Ana just started a job at Google."),
    # "my other sister" is another sister, "my other dog" another dog
    ("other-sister", "My sister lives in Chicago.", "My other sister lives in Austin."),
    ("other-dog", "My dog is called Biscuit.", "My other dog is called Pepper."),
    # another's class; "my other sister" beside a sister named
    ("wife-yoga", "I have yoga every Monday at 6pm.", "My wife's yoga moved to Tuesdays."),
    ("other-jen", "My sister Jen lives in Paris.", "My other sister moved to Berlin."),
    # another's phone; a relative's husband's job
    ("son-phone", "My phone is an iPhone 12.", "My son got a Pixel 8."),
    ("husband-job", "Priya works at Google.", "Priya's husband's new job is at Intuit."),
]


async def test_of_a_slot_of_several_values_the_value_a_question_names_answers_first(minilm_server):
    async with Client(minilm_server) as client:
        await ok(client, "memory_write", text="I started taking lisinopril 10mg once a day.", user_id="meds",
                 valid_from=ago(30))
        metformin = await ok(client, "memory_write", text="I started metformin 500mg twice daily.", user_id="meds",
                             valid_from=ago(60))
        for question in ("metformin dose", "What is my metformin dose?"):
            hits = (await ok(client, "memory_recall", query=question, user_id="meds"))["results"]
            assert hits[0]["id"] == metformin["id"], question
        # a change still answers first when the question names the value it left
        await ok(client, "memory_write", text="I take sertraline every morning.", user_id="meds", valid_from=ago(90))
        switched = await ok(client, "memory_write", text="My doctor switched me over to escitalopram.",
                            user_id="meds", valid_from=ago(5))
        hits = (await ok(client, "memory_recall", query="Am I still on sertraline?", user_id="meds"))["results"]
        assert hits[0]["id"] == switched["id"]


async def test_a_short_turn_that_states_a_persons_birthday_answers_when_it_is(minilm_server):
    async with Client(minilm_server) as client:
        await ok(client, "memory_write", user_id="bday", session="a", messages=[
            {"role": "user", "content": "Sam handles the rent; it's 2400 a month, due on the 1st.",
             "time": "2024-05-01T18:00:00Z"},
            {"role": "user", "content": "We're planning to repaint the kitchen in June. Samantha picked sage green."},
            {"role": "user", "content": "Update: Sam Lee is moving out at the end of July, so the rent goes to Tom."}])
        said = await ok(client, "memory_write", user_id="bday", session="b", messages=[
            {"role": "user", "content": "Sam's birthday is on the 14th of March.", "time": "2024-06-11T09:00:00Z"}])
        hits = (await ok(client, "memory_recall", query="When is Sam's birthday?", user_id="bday"))["results"]
        assert hits[0]["id"] == said["turns"][0]["id"]


@pytest.mark.parametrize(("user", "old", "new"), [
    ("moved", "I live in Austin.", "I moved to Denver."),                        # superseded
    ("in-part", "I live in Austin and work at Dell.", "We moved to Denver."),  # revised in part
])
async def test_asked_what_held_before_with_the_history_the_replaced_memory_answers_first(minilm_server, user,
                                                                                         old, new):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(400))
        second = await ok(client, "memory_write", text=new, user_id=user, valid_from=ago(10))
        assert first["id"] in second["superseded"] + second["revised"]
        for question, expected in [("Where did I live before?", [first["id"], second["id"]]),
                                   ("Where do I live?", [second["id"], first["id"]])]:
            hits = (await ok(client, "memory_recall", query=question, user_id=user, include_retired=True))["results"]
            assert [h["id"] for h in hits[:2]] == expected, question
        # without the history, what held before is not shown when it no longer holds at all
        hits = (await ok(client, "memory_recall", query="Where did I live before?", user_id=user))["results"]
        assert hits[0]["id"] == second["id"]


async def test_asked_for_an_old_job_with_the_history_the_replaced_one_is_on_a_page_of_later_ones(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "old-job"}
        acme = await ok(client, "memory_write", text="I work at Acme Corp as a product manager.",
                        valid_from="2022-03-01", **scope)
        globex = await ok(client, "memory_write", text="I started a new job at Globex as a data engineer.",
                          valid_from="2023-02-01", **scope)
        assert globex["superseded"] == [acme["id"]]
        for text, when in (("My manager at Globex is Priya.", "2023-06-01"),
                           ("I got promoted to senior data engineer at Globex.", "2023-09-01"),
                           ("I'm the tech lead of the data platform team at Globex now.", "2024-04-01"),
                           ("I adopted a cat named Miso.", "2024-07-01")):
            await ok(client, "memory_write", text=text, valid_from=when, **scope)
        # the job was stated three times since: newest first, the one it replaced fell off the page
        for question in ("What was my old job?", "What was my former job?", "What was my previous job?",
                         "What was my last job?", "What job did I have before?"):
            hits = await ok(client, "memory_recall", query=question, include_retired=True, limit=3, **scope)
            assert acme["id"] in [h["id"] for h in hits["results"]], question


async def test_a_change_of_another_part_that_names_the_asked_value_as_it_was_takes_over_nothing(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "other-slot"}
        job = await ok(client, "memory_write", text="User works at Helio Health as a data engineer, earning 150k.",
                       valid_from="2023-01-10", **scope)
        raise_ = await ok(client, "memory_write", text="User's salary at Helio Health was raised to 180k.",
                          valid_from="2024-03-01", **scope)
        assert raise_["revised"] == [job["id"]]
        # the raise names the employer as it was: it changed the pay, not where the user works
        hits = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert hits[0]["id"] == job["id"]


async def test_a_change_of_another_slot_that_names_the_asked_value_on_the_way_comes_after_its_statement(
        minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "other-slot-home"}
        await ok(client, "memory_write", text="User lives in Portland.", valid_from="2022-05-01", **scope)
        await ok(client, "memory_write", text="User owns a Honda Civic.", valid_from="2022-06-01", **scope)
        moved = await ok(client, "memory_write", text="User moved to Seattle.", valid_from="2023-09-01", **scope)
        sold = await ok(client, "memory_write", text="User sold the Honda Civic before moving to Seattle.",
                        valid_from="2023-10-20", **scope)
        assert sold["superseded"] and moved["id"] not in sold["superseded"]
        # the sale ended the car, and names the city on the way: the move states the home
        hits = (await ok(client, "memory_recall", query="Where do I live?", **scope))["results"]
        assert [h["id"] for h in hits[:2]] == [moved["id"], sold["id"]]
        # asked about the car, the sale answers
        hits = (await ok(client, "memory_recall", query="What car do I have?", include_retired=True, **scope))
        assert hits["results"][0]["id"] == sold["id"]


async def test_a_new_job_leaves_the_name_said_beside_the_old_one_current(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "intro"}
        intro = await ok(client, "memory_write", text="I'm Sam, I work as a nurse at Mercy Hospital in Tulsa.",
                         valid_from="2025-01-05", **scope)
        shifts = await ok(client, "memory_write", text="I switched to night shifts at Mercy.",
                          valid_from="2025-03-01", **scope)
        assert shifts["revised"] == [intro["id"]]
        job = await ok(client, "memory_write", text="I accepted a job at St. John's as a charge nurse.",
                       valid_from="2025-06-01", **scope)
        # the name still holds: the job changed that memory in part, and hid nothing
        assert job["revised"] == [intro["id"]] and job["superseded"] == []
        hits = (await ok(client, "memory_recall", query="What is my name?", **scope))["results"]
        assert hits[0]["id"] == intro["id"]  # not the change of its shifts, which touched the job
        hits = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert hits[0]["id"] == job["id"]
        # a month in the question is a time, not the person asked about
        then = (await ok(client, "memory_recall", query="Where did I work in February 2025?", as_of="2025-02-15",
                         **scope))["results"]
        assert then[0]["id"] == intro["id"]


@pytest.mark.parametrize(("user", "old", "new", "question", "kept"), [
    # the name said beside the old job, in letters of any script, in one sentence or two
    ("kept-name-1", "Hi! I'm Tomás, I work as a sous chef at Bellwether.",
     "I quit Bellwether, I'm head chef at Fern & Fig now", "What's my name?", "Tomás"),
    ("kept-name-2", "I'm Zoë. I work at Bellwether.", "I started at Fern & Fig.", "What is my name?", "Zoë"),
    # what the one a relationship named does or where they live stays true of them when it ends
    ("kept-partner-1", "my girlfriend Sam is a nurse", "Sam and I broke up", "What does Sam do for work?", "nurse"),
    ("kept-partner-2", "My boyfriend Leo works at Pixar.", "Leo and I split up.", "Where does Leo work?", "Pixar"),
    ("kept-partner-3", "My wife Ana lives in Boston.", "Ana and I got divorced.", "Where does Ana live?", "Boston"),
    # news of someone else that no slot reads
    ("kept-news", "I work at Google. My daughter just started kindergarten.", "I now work at Meta.",
     "When did my daughter start kindergarten?", "kindergarten"),
])
async def test_a_change_leaves_what_the_old_memory_says_of_something_else_current(minilm_server, user, old, new,
                                                                                 question, kept):
    # the memory_write text: one that also says things the new one leaves alone stays current,
    # listed in revised
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, metadata={"speaker": "user"},
                         valid_from=ago(120))
        second = await ok(client, "memory_write", text=new, user_id=user, metadata={"speaker": "user"})
        assert second["revised"] == [first["id"]] and second["superseded"] == []
        hits = (await ok(client, "memory_recall", query=question, user_id=user, limit=3))["results"]
        found = next(h for h in hits if h["id"] == first["id"])
        assert kept in found["text"] and found["valid_to"] is None
        assert found["annotations"]["revised_by"] == [second["id"]]


async def test_the_one_a_relationship_named_keeps_their_facts_when_it_ends(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "broke-up"}
        first = await ok(client, "memory_write", text="my girlfriend Sam is a nurse", valid_from=ago(300), **scope)
        sam = next(e for e in first["entities"] if e["name"] == "Sam")
        await ok(client, "memory_write", text="Sam and I broke up", **scope)
        facts = (await ok(client, "memory_read", id=sam["id"], **scope))["entity"]["facts"]
        assert [(f["relation"], f["object"], f["valid_to"]) for f in facts if f["relation"] == "is_a"] == [
            ("is_a", "nurse", None)]
        # who she was to the speaker ended with the relationship: no current fact says it
        assert "has_girlfriend" not in {f["relation"] for f in facts}


@pytest.mark.parametrize(("user", "old", "new"), [
    ("whole-job", "I work at Google.", "I now work at Meta."),
    # what the rest says is about the home that changed: "it here", "it there"
    ("whole-home-1", "I live in Austin and love it here.", "I moved to Denver."),
    ("whole-home-2", "I live in Austin. My kids love it there.", "I moved to Denver."),
    # where a manager managed says who the manager was
    ("whole-manager", "Bob Smith is my manager at Dell.", "Priya Nair is my manager now."),
])
async def test_a_change_of_all_the_old_memory_says_still_supersedes_it(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(120))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["superseded"] == [first["id"]] and second["revised"] == []


async def test_a_memory_true_only_from_a_later_time_is_left_out_of_recall_until_then(minilm_server):
    async with Client(minilm_server) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", user_id="later", valid_from=ago(400))
        denver = await ok(client, "memory_write", text="I live in Denver.", user_id="later", valid_from=ago(-400))
        assert denver["superseded"] == [austin["id"]]
        # now, Austin is where the user lives; the move is marked, and shown as of its time
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="later"))["results"]
        assert [h["id"] for h in hits] == [austin["id"]] and hits[0]["superseded_by"] == [denver["id"]]
        then = (await ok(client, "memory_recall", query="Where do I live?", user_id="later",
                         as_of=ago(-500)))["results"]
        assert [h["id"] for h in then] == [denver["id"]]
        # a list is every memory not closed now, the one still to come included
        listed = await ok(client, "memory_list", user_id="later")
        assert {m["id"] for m in listed["memories"]} == {austin["id"], denver["id"]}


async def test_two_people_of_one_first_name_each_keep_and_change_their_own_job(minilm_server):
    async with Client(minilm_server) as client:
        kim = await ok(client, "memory_write", text="Alex Kim works at Initech.", user_id="alexes",
                       valid_from=ago(300))
        morgan = await ok(client, "memory_write", text="Alex Morgan is a customer who works at Globex.",
                          user_id="alexes", valid_from=ago(200))
        assert morgan["superseded"] == [] and morgan["revised"] == []
        moved = await ok(client, "memory_write", text="Alex Morgan left Globex and now works at Hooli.",
                         user_id="alexes", valid_from=ago(10))
        assert moved["superseded"] == [morgan["id"]]
        hits = (await ok(client, "memory_recall", query="Where does Alex Kim work?", user_id="alexes"))["results"]
        assert hits[0]["id"] == kim["id"] and hits[0]["superseded_by"] == []
        then = (await ok(client, "memory_recall", query="Where does Alex Morgan work?", user_id="alexes",
                         as_of=ago(100)))["results"]
        assert then[0]["id"] == morgan["id"]


async def test_someone_of_the_users_name_is_another_person_whose_facts_are_their_own(minilm_server):
    # the user maya's coworker Maya: her own entity, and neither her home nor her diet is the user's
    async with Client(minilm_server) as client:
        scope = {"user_id": "maya"}
        home = await ok(client, "memory_write", text="I live in Austin.", valid_from=ago(60), **scope)
        diet = await ok(client, "memory_write", text="I'm a vegetarian.", valid_from=ago(60), **scope)
        me = next(e["id"] for e in home["entities"] if e["name"] == "maya")
        coworker = await ok(client, "memory_write", text="My coworker Maya lives in Dallas.", **scope)
        assert coworker["superseded"] == [] and coworker["revised"] == []
        other = next(e for e in coworker["entities"] if e["name"] == "Maya")
        assert other["id"] != me and other["resolution"] == "new"
        assert {(f["subject"], f["relation"]) for f in coworker["facts"]} == {("Maya", "lives_in"),
                                                                               ("maya", "has_coworker")}
        again = await ok(client, "memory_write", text="My coworker Maya is vegan.", **scope)
        assert next(e for e in again["entities"] if e["name"] == "Maya")["id"] == other["id"]
        # the user's own facts stay the user's entity's, and the name alone may be either: no change of the user's
        moved = await ok(client, "memory_write", text="I moved to Denver.", **scope)
        assert moved["superseded"] == [home["id"]]
        mine = next(e for e in moved["entities"] if e["name"] == "maya")
        assert (mine["id"], mine["resolution"]) == (me, "exact")
        alone = await ok(client, "memory_write", text="Maya is vegan.", **scope)
        assert alone["superseded"] == [] and alone["entities"][0]["resolution"] == "proposed_merge"
        assert set(alone["entities"][0]["proposed_merge_with"]) == {me, other["id"]}
        hits = (await ok(client, "memory_recall", query="Where do I live?", **scope))["results"]
        assert hits[0]["id"] == moved["id"]
        read = await ok(client, "memory_read", id=diet["id"], **scope)
        assert read["superseded_by"] == [] and read["valid_to"] is None


@pytest.mark.parametrize(("user", "old", "new"), [
    ("once", "I live in Denver.", "I used to live in Denver."),
    ("laid-off", "I work at Dell.", "I got laid off from Dell."),
    ("started", "I work at Dell.", "Started at Stripe this week."),
    ("meat", "I'm vegetarian.", "I eat meat again."),
    ("left", "I work at Dell.", "I left Dell."),
    ("graduated", "I'm a junior at UCLA.", "I graduated from UCLA in June."),
    ("new-bank", "I bank with Chase.", "I opened a checking account at Ally and moved everything over."),
])
async def test_a_value_said_to_be_held_once_or_left_ends_the_memory_that_holds_it(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(400))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["superseded"] == [first["id"]]


async def test_what_one_now_earns_supersedes_the_salary_and_answers_how_much_one_makes(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "earner"}
        salary = await ok(client, "memory_write", text="My salary is $95k.", valid_from=ago(300), **scope)
        tips = await ok(client, "memory_write", text="I make $50 in tips on Fridays.", valid_from=ago(200), **scope)
        assert tips["superseded"] == [] and tips["revised"] == []  # what one makes in tips is no salary
        raise_ = await ok(client, "memory_write", text="Got a raise, I make $110k now.", **scope)
        assert raise_["superseded"] == [salary["id"]]
        for question in ("How much do I make?", "What is my salary?"):
            hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
            assert hits[0]["id"] == raise_["id"], question


@pytest.mark.parametrize(("user", "old", "new"), OPEN_CONTROLS)
async def test_another_slot_person_kind_or_context_leaves_the_old_memory_current(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(60))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["superseded_by"] == [] and read["valid_to"] is None and "revised_by" not in read["annotations"]


async def test_a_change_no_rule_reads_revises_the_nearest_memory_and_keeps_it_current(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "unread"}
        release = await ok(client, "memory_write", text="We cut releases every Thursday afternoon.",
                           valid_from=ago(90), **scope)
        await ok(client, "memory_write", text="The office coffee machine broke again.", valid_from=ago(30), **scope)
        moved = await ok(client, "memory_write",
                         text="We moved release day to Tuesdays so nobody debugs prod over the weekend.", **scope)
        assert moved["revised"] == [release["id"]] and moved["superseded"] == []
        read = await ok(client, "memory_read", id=release["id"], **scope)
        assert read["annotations"]["revised_by"] == [moved["id"]] and read["valid_to"] is None
        # the older statement holds the question's words; the newer one that changed it answers first
        hits = (await ok(client, "memory_recall", query="When do we cut releases?", **scope))["results"]
        assert [h["id"] for h in hits[:2]] == [moved["id"], release["id"]]
        assert hits[0]["lanes"]["successor"] == 1
        assert hits[1]["annotations"]["revised_by"] == [moved["id"]]
        # asked as of a day before the change, the older statement is the answer, and no step moved it
        before = (await ok(client, "memory_recall", query="When do we cut releases?", as_of=ago(1), **scope))
        assert before["results"][0]["id"] == release["id"]
        assert all("successor" not in h["lanes"] for h in before["results"])


async def test_a_schedule_change_said_in_other_words_revises_the_time_the_rules_read(minilm_server):
    # the rules read the therapy's time, but not a change naming it "our sessions": it revises it
    async with Client(minilm_server) as client:
        scope = {"user_id": "unread-time"}
        therapy = await ok(client, "memory_write", text="Therapy is on Thursdays at 4pm.", valid_from=ago(40), **scope)
        moved = await ok(client, "memory_write", text="My therapist moved our sessions to Fridays.", **scope)
        assert moved["revised"] == [therapy["id"]] and moved["superseded"] == []
        hits = (await ok(client, "memory_recall", query="When is my therapy?", **scope))["results"]
        assert hits[0]["id"] == moved["id"] and hits[1]["annotations"]["revised_by"] == [moved["id"]]


async def test_a_change_that_names_what_it_changes_revises_the_memory_sharing_that_name(minilm_server):
    # no rule reads either text, the change is no first-person one, and the two share few other
    # words: the name they share says which memory the change is about
    async with Client(minilm_server) as client:
        scope = {"user_id": "anchored"}
        rollbar = await ok(client, "memory_write", text="Error reports from the mobile app go to Rollbar.",
                           valid_from=ago(90), **scope)
        await ok(client, "memory_write", text="The mobile app ships every second Monday.", valid_from=ago(30),
                 **scope)
        sentry = await ok(client, "memory_write", text="Nobody checks Rollbar anymore; crashes land in Sentry now.",
                          **scope)
        assert sentry["revised"] == [rollbar["id"]] and sentry["superseded"] == []
        hits = (await ok(client, "memory_recall", query="Where do the mobile app's error reports go?", **scope))
        assert [h["id"] for h in hits["results"][:2]] == [sentry["id"], rollbar["id"]]
        assert hits["results"][1]["annotations"]["revised_by"] == [sentry["id"]]
        # someone else's change, by the name the older memory gives them
        anouk = await ok(client, "memory_write", text="My cousin Anouk works as a vet in Utrecht.", valid_from=ago(90),
                         **scope)
        sold = await ok(client, "memory_write", text="Anouk sold her share of the practice; she flies planes now.",
                        **scope)
        assert sold["revised"] == [anouk["id"]]
        # a short statement is about what its nouns name
        printer = await ok(client, "memory_write", text="The office printer sits in the kitchen.",
                           valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="The printer lives in the hallway cupboard now.", **scope)
        assert moved["revised"] == [printer["id"]]


@pytest.mark.parametrize(("user", "old", "new"), [
    ("no-change", "Error reports from the mobile app go to Rollbar.", "Rollbar's dashboard was slow all morning."),
    ("a-plan", "Error reports from the mobile app go to Rollbar.", "We might drop Rollbar for Sentry next quarter."),
    ("spoken-to", "My cousin Anouk works as a vet in Utrecht.", "Thanks, Anouk! The pilots' course sounds great now."),
    # a noun of a long turn is one topic of many
    ("long", "The office printer sits in the kitchen.",
     "Honestly the whole week was chaos, the heating kept dropping, the printer jammed twice and we all ended up "
     "working from the cafe downstairs now and then."),
])
async def test_a_shared_name_without_a_change_revises_nothing(minilm_server, user, old, new):
    async with Client(minilm_server) as client:
        scope = {"user_id": user}
        await ok(client, "memory_write", text=old, valid_from=ago(90), **scope)
        second = await ok(client, "memory_write", text=new, **scope)
        assert second["revised"] == [] and second["superseded"] == [] and second["conflicts"] == []


async def test_a_change_no_rule_reads_answers_the_slot_of_the_memory_it_revised(minilm_server):
    # the older memory states the slot asked about; the newer one states nothing a rule reads,
    # revised it, and so answers the question first
    async with Client(minilm_server) as client:
        scope = {"user_id": "takes-over"}
        php = await ok(client, "memory_write", text="The payments API is written in PHP.", valid_from=ago(90), **scope)
        await ok(client, "memory_write", text="The payments API emails receipts at midnight.", valid_from=ago(30),
                 **scope)
        kotlin = await ok(client, "memory_write",
                          text="We finished porting the payments API to Kotlin; the old codebase is archived.", **scope)
        assert kotlin["revised"] == [php["id"]]
        hits = (await ok(client, "memory_recall", query="What language is the payments API written in?", **scope))
        assert [h["id"] for h in hits["results"][:2]] == [kotlin["id"], php["id"]]
        assert hits["results"][0]["lanes"]["slot"] == 1 and "slot" in hits["results"][1]["lanes"]


async def test_a_replacement_that_may_be_about_two_memories_changes_neither(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "which"}
        editor = await ok(client, "memory_write", text="I use VS Code as my editor.", valid_from=ago(90), **scope)
        browser = await ok(client, "memory_write", text="I use Firefox as my browser.", valid_from=ago(90), **scope)
        switched = await ok(client, "memory_write", text="I switched to Arc.", **scope)
        assert switched["superseded"] == [] and switched["revised"] == []
        assert {editor["id"], browser["id"]} <= set(switched["related"])


async def test_the_slot_a_question_asks_beats_a_same_topic_memory(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "slot"}
        await ok(client, "memory_write", text="The office coffee machine at work broke again.", **scope)
        started = await ok(client, "memory_write", text="Started my first week at Stripe today.", valid_from=ago(3),
                           **scope)
        await ok(client, "memory_write", text="My team lead at work does code reviews on Fridays.", **scope)
        hits = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert hits[0]["id"] == started["id"]


async def test_a_question_about_pastimes_ranks_the_memories_that_state_one_first(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "pastimes"}
        await ok(client, "memory_write", text="I love kayaking on the lake.", valid_from=ago(300), **scope)
        for text in ("My cat Miso is a ragdoll.", "I'm allergic to shellfish.", "I work at Dell as a sales engineer.",
                     "My sister collects old postcards.", "I collect vintage cameras."):
            await ok(client, "memory_write", text=text, **scope)
        hits = (await ok(client, "memory_recall", query="What are my hobbies?", limit=3, **scope))["results"]
        assert {h["text"] for h in hits[:2]} == {"I love kayaking on the lake.", "I collect vintage cameras."}
        assert all("slot" in h["lanes"] for h in hits[:2]) and "slot" not in hits[2]["lanes"]
        # hobbies are held together: the older one the question is nearer to is not put after the newer
        hits = (await ok(client, "memory_recall", query="Which hobby of mine is on the lake?", **scope))["results"]
        assert hits[0]["text"] == "I love kayaking on the lake."


@pytest.mark.parametrize("question", ["What are my hobbies?", "What do I do for fun?", "What activities do I do?"])
async def test_a_pastime_stopped_answers_after_the_pastimes_held(minilm_server, question):
    # a stop is history, not what is: after what is held, however new; the others keep their order
    async with Client(minilm_server) as client:
        scope = {"user_id": "stopped-" + question.split()[2]}
        held = set()
        for text, days in (("I took up painting.", 400), ("I play tennis on weekends.", 300),
                           ("I stopped climbing because of a knee injury.", 20), ("I quit the choir.", 10),
                           ("I live in Seattle.", 5)):
            written = await ok(client, "memory_write", text=text, valid_from=ago(days), **scope)
            if "stopped" not in text and "quit" not in text and "live" not in text:
                held.add(written["id"])
        hits = (await ok(client, "memory_recall", query=question, limit=5, **scope))["results"]
        slot = [h for h in hits if "slot" in h["lanes"]]
        assert {h["id"] for h in slot[:2]} == held, [h["text"] for h in hits]
        assert [h["text"] for h in slot[2:]] == ["I quit the choir.", "I stopped climbing because of a knee injury."]
        # a question that names the value stopped is answered by the stop first
        hits = (await ok(client, "memory_recall", query="Am I still climbing?", limit=3, **scope))["results"]
        assert hits[0]["text"] == "I stopped climbing because of a knee injury."


async def test_a_pastime_gone_to_or_a_club_joined_answers_what_one_does_for_fun(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "outings"}
        held = set()
        for text, days in (("I go bouldering twice a week.", 600), ("I started a Tuesday evening pottery class.", 300),
                           ("I stopped climbing because of a knee injury.", 250),
                           ("I stopped using the albuterol inhaler.", 10),
                           ("I joined a running club that meets Saturday mornings.", 100), ("I live in Seattle.", 5)):
            written = await ok(client, "memory_write", text=text, valid_from=ago(days), **scope)
            if "stopped" not in text and "live" not in text:
                held.add(written["id"])
        for question in ("What are my hobbies?", "What do I do for fun?"):
            hits = (await ok(client, "memory_recall", query=question, limit=4, **scope))["results"]
            assert {h["id"] for h in hits[:3]} == held and all("slot" in h["lanes"] for h in hits[:3]), question
            # the inhaler is no pastime: the slot step does not move it
            assert all("slot" not in h["lanes"] for h in hits if "inhaler" in h["text"])


async def test_a_hit_the_slot_step_moved_up_says_so_in_its_lanes(minilm_server):
    # the friend's home matches "where do I live?" more strongly than "I moved to Denver" (it
    # holds "live"); the slot step puts the user's own home first, and the hit says why. (No
    # older home of the user's is written: the move would supersede it and take its place.)
    async with Client(minilm_server) as client:
        scope = {"user_id": "slotlane"}
        friend = await ok(client, "memory_write", text="My friend Tom lives in Boston.", valid_from=ago(300), **scope)
        moved = await ok(client, "memory_write", text="I moved to Denver last month.", valid_from=ago(30), **scope)
        hits = (await ok(client, "memory_recall", query="where do I live?", limit=3, **scope))["results"]
        by_id = {h["id"]: h for h in hits}
        assert hits[0]["id"] == moved["id"] and hits[0]["lanes"]["slot"] == 1
        assert "slot" not in by_id[friend["id"]]["lanes"]
        assert by_id[friend["id"]]["score"] > hits[0]["score"]  # so the order is not the score's
        unasked = (await ok(client, "memory_recall", query="Denver Boston", limit=3, **scope))["results"]
        assert all("slot" not in h["lanes"] for h in unasked)
        assert [h["score"] for h in unasked] == sorted((h["score"] for h in unasked), reverse=True)


async def test_duplicates_conflicts_and_compatible_additions(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "mixed"}
        first = await ok(client, "memory_write", text="I speak French fluently.", valid_from=ago(30), **scope)
        again = await ok(client, "memory_write", text="I speak French fluently.", **scope)
        assert again["duplicate_of"] == first["id"] and again["id"] == first["id"]
        german = await ok(client, "memory_write", text="I also speak conversational German.", **scope)
        assert german["superseded"] == [] and german["conflicts"] == [] and first["id"] in german["related"]
        stored = await ok(client, "memory_write", text="Our anniversary is on June 3.", valid_from=ago(5), **scope)
        other = await ok(client, "memory_write", text="Our anniversary is on June 13.", valid_from=ago(5), **scope)
        assert [c["with_id"] for c in other["conflicts"]] == [stored["id"]]
        hits = (await ok(client, "memory_recall", query="When is our anniversary?", **scope))["results"]
        assert {hits[0]["id"], hits[1]["id"]} == {stored["id"], other["id"]}
        assert all(h["conflicts"] for h in hits[:2])


async def test_a_book_finished_ends_the_one_being_read(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "reader"}
        old = await ok(client, "memory_write", text="I'm reading Project Hail Mary right now.", valid_from=ago(20),
                       **scope)
        await ok(client, "memory_write", text="Went for a 10k run along the river this morning.", valid_from=ago(15),
                 **scope)
        new = await ok(client, "memory_write", text="Finished Project Hail Mary - loved it. Starting Piranesi next.",
                       **scope)
        assert new["superseded"] == [old["id"]]
        hits = (await ok(client, "memory_recall", query="What am I reading?", **scope))["results"]
        assert hits[0]["id"] == new["id"] and old["id"] not in {h["id"] for h in hits}
        before = (await ok(client, "memory_recall", query="What am I reading?", as_of=ago(10), **scope))["results"]
        assert before[0]["id"] == old["id"] and before[0]["superseded_by"] == [new["id"]]


async def test_a_medicine_stopped_is_superseded_and_one_still_taken_is_kept(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "patient"}
        old = await ok(client, "memory_write", text="I take 10 mg of citalopram daily.", valid_from=ago(90), **scope)
        kept = await ok(client, "memory_write", text="I take metformin with dinner.", valid_from=ago(80), **scope)
        new = await ok(client, "memory_write", text="My psychiatrist took me off citalopram; I'm on sertraline now.",
                       **scope)
        assert new["superseded"] == [old["id"]] and kept["id"] not in new["superseded"]
        hits = (await ok(client, "memory_recall", query="What medication do I take?", **scope))["results"]
        assert hits[0]["id"] == new["id"] and kept["id"] in {h["id"] for h in hits}
        assert old["id"] not in {h["id"] for h in hits}


async def test_retire_and_amend_take_the_time_of_the_change(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "times"}
        job = await ok(client, "memory_write", text="I work at Shopify.", valid_from=ago(300), **scope)
        assert "future" in await fails(client, "memory_retire", id=job["id"], valid_to=ago(-2), **scope)
        amended = await ok(client, "memory_amend", id=job["id"], text="I work at Stripe.", valid_from=ago(30),
                           **scope)
        assert amended["valid_from"][:10] == ago(30)[:10]
        was = (await ok(client, "memory_recall", query="Where do I work?", as_of=ago(60), **scope))["results"]
        assert was[0]["id"] == job["id"]
        retired = await ok(client, "memory_retire", id=amended["id"], valid_to=ago(1), **scope)
        assert retired["valid_to"][:10] == ago(1)[:10]


async def by_id(client, query: str, scope: dict) -> dict:
    return {h["id"]: h for h in (await ok(client, "memory_recall", query=query, **scope))["results"]}


async def test_an_amend_keeps_the_contradictions_its_new_text_makes_and_changes_no_other_memory(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "birthday"}
        march = await ok(client, "memory_write", text="My birthday is on March 3.", valid_from=ago(20), **scope)
        april = await ok(client, "memory_write", text="My birthday is on April 5.", valid_from=ago(10), **scope)
        assert [c["with_id"] for c in april["conflicts"]] == [march["id"]]
        # corrected to another date that still disagrees: the contradiction moves to the new memory
        fixed = await ok(client, "memory_amend", id=march["id"], text="My birthday is on March 4.", **scope)
        assert [(c["id"], c["with_id"]) for c in fixed["conflicts"]] == [(fixed["id"], april["id"])]
        hits = await by_id(client, "When is my birthday?", scope)
        assert hits[fixed["id"]]["conflicts"] == [april["id"]] and hits[april["id"]]["conflicts"] == [fixed["id"]]
        assert hits[april["id"]]["valid_to"] is None and hits[april["id"]]["superseded_by"] == []
        # corrected to agree: nothing contradicts it, and the other memory is left as it was
        agreed = await ok(client, "memory_amend", id=fixed["id"], text="My birthday is on April 5, not March.", **scope)
        assert agreed["conflicts"] == []
        hits = await by_id(client, "When is my birthday?", scope)
        assert hits[agreed["id"]]["conflicts"] == [] and hits[april["id"]]["conflicts"] == []
        assert hits[april["id"]]["valid_to"] is None


async def test_a_change_to_one_of_several_things_a_memory_says_revises_it_and_keeps_the_rest(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "partly"}
        both = await ok(client, "memory_write", text="I live in Lyon and work at Renault as a designer.",
                        valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="We moved to Nantes last month.", **scope)
        assert moved["revised"] == [both["id"]] and moved["superseded"] == []
        # both current; asked about the changed slot the newer is first, asked about the part
        # the revision left alone the revised memory is, and asked about neither the newer is
        for question, first in (("Where do I live?", moved), ("Where do I work?", both),
                                ("Lyon, Nantes and Renault", moved)):
            hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
            found = {h["id"]: h for h in hits if h["id"] in (both["id"], moved["id"])}
            assert list(found)[0] == first["id"], question
            assert found[both["id"]]["annotations"] == {"revised_by": [moved["id"]]}
            assert found[both["id"]]["valid_to"] is None
            assert found[moved["id"]]["annotations"] == {"revises": [both["id"]]}
        read = await ok(client, "memory_read", id=both["id"], **scope)
        assert read["valid_to"] is None and read["superseded_by"] == []
        assert read["annotations"] == {"revised_by": [moved["id"]]}
        lives = [f for f in read["facts"] if f["relation"] == "lives_in"]
        assert lives and all(f["valid_to"] is not None for f in lives)  # the old home ended


@pytest.mark.parametrize(("user", "old", "aside", "new", "question", "limit"), [
    # a deadline pushed to a later date
    ("pushed", "The project deadline is March 15.", "The design review went well.",
     "The deadline got pushed to April 2.", "When is the project deadline?", 2),
    # the next of a numbered series, in other words than the first ("DB", "database")
    ("series", "The staging database is on db-staging-01.", "The office wifi is flaky again.",
     "Staging DB moved to db-staging-02 last night.", "Where is the staging database?", 10),
    # a team named, then the company left: joining another is the extractor's relation, no slot's
    ("left-company", "I'm in the data team at Siemens.", "The office wifi is flaky again.",
     "Not at Siemens anymore. I joined a small startup called Brightloop in March.", "Where do I work?", 3),
])
async def test_a_change_that_names_what_it_changes_revises_the_memory_naming_it(minilm_server, user, old, aside, new,
                                                                                 question, limit):
    async with Client(minilm_server) as client:
        scope = {"user_id": user}
        first = await ok(client, "memory_write", text=old, valid_from=ago(30), **scope)
        await ok(client, "memory_write", text=aside, valid_from=ago(20), **scope)
        changed = await ok(client, "memory_write", text=new, **scope)
        assert changed["revised"] == [first["id"]]
        hits = (await ok(client, "memory_recall", query=question, limit=limit, **scope))["results"]
        assert hits[0]["id"] == changed["id"]


async def test_a_change_no_rule_reads_answers_only_for_the_part_of_a_compound_memory_it_touched(minilm_server):
    # the move took the home; the unread job change repeats "designer", so it answers where
    # one works, and the move still answers where one lives
    async with Client(minilm_server) as client:
        scope = {"user_id": "touched"}
        both = await ok(client, "memory_write", text="I live in Lyon and work at Renault as a designer.",
                        valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="We moved to Nantes last month.", valid_from=ago(30), **scope)
        job = await ok(client, "memory_write", text="I'm no longer a designer; I switched to product.", **scope)
        assert moved["revised"] == [both["id"]] and job["revised"] == [both["id"]]
        home = (await ok(client, "memory_recall", query="Where do I live?", limit=3, **scope))["results"]
        assert [h["id"] for h in home[:2]] == [moved["id"], both["id"]]
        assert "slot" not in next(h for h in home if h["id"] == job["id"])["lanes"]
        work = (await ok(client, "memory_recall", query="Where do I work?", limit=3, **scope))["results"]
        assert work[0]["id"] == job["id"] and work[0]["lanes"]["slot"] == 1


async def test_a_change_of_ones_own_part_does_not_lead_a_question_about_someone_else(minilm_server):
    # the diet changed is the speaker's; asked about the wife's, the memory that says it comes
    # first with no successor ahead of it, and asked about one's own the change does
    async with Client(minilm_server) as client:
        scope = {"user_id": "someone-else"}
        both = await ok(client, "memory_write", text="I'm vegetarian, and my wife Yuki can't eat shellfish.",
                        valid_from=ago(90), **scope)
        fish = await ok(client, "memory_write", text="I started eating fish again, so I'm pescatarian now.", **scope)
        assert fish["revised"] == [both["id"]]
        hits = (await ok(client, "memory_recall", query="What can't Yuki eat?", limit=3, **scope))["results"]
        assert hits[0]["id"] == both["id"]
        assert all("successor" not in h["lanes"] for h in hits)
        hits = (await ok(client, "memory_recall", query="What is my diet?", limit=3, **scope))["results"]
        assert hits[0]["id"] == fish["id"]
        # a change of her own part comes ahead of what it changed
        sushi = await ok(client, "memory_write", text="Yuki's allergy is gone, so she eats shellfish again now.",
                         **scope)
        assert both["id"] in sushi["revised"]
        hits = (await ok(client, "memory_recall", query="What can't Yuki eat?", limit=3, **scope))["results"]
        assert hits[0]["id"] == sushi["id"]


async def test_a_revision_about_no_one_a_question_names_is_not_brought_to_it(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "named"}
        chen = await ok(client, "memory_write", text="Robert Chen runs the data team at Initech.", **scope)
        dentist = await ok(client, "memory_write", text="My dentist is Dr. Alvarez.", valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="Alvarez moved her practice to Oak Street.", **scope)
        assert moved["revised"] == [dentist["id"]]
        hits = (await ok(client, "memory_recall", query="What does Robert Chen do?", limit=2, **scope))["results"]
        assert hits[0]["id"] == chen["id"] and moved["id"] not in {h["id"] for h in hits}
        # asked about the dentist, the revision comes first
        hits = await ok(client, "memory_recall", query="Where is Dr. Alvarez's practice?", limit=2, **scope)
        assert hits["results"][0]["id"] == moved["id"]


async def test_tickets_of_one_series_about_changes_revise_none_and_each_answers_for_itself(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "tickets"}
        written = [await ok(client, "memory_write", text=f"Ticket OPS-{n} is about {topic}.", valid_from=ago(30 - n),
                            **scope)
                   for n, topic in ((1, "the login redirect bug"), (2, "the flaky payment tests"),
                                    (3, "upgrading React"), (4, "moving the docs to Vercel"))]
        assert all(w["revised"] == [] and w["superseded"] == [] for w in written)
        hits = (await ok(client, "memory_recall", query="What is OPS-2 about?", limit=3, **scope))["results"]
        assert hits[0]["id"] == written[1]["id"] and "successor" not in hits[0]["lanes"]


async def test_asked_where_a_ticket_stands_the_newest_turns_naming_it_come_first(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "ticket-status"}
        sessions = [("2024-01-10T10:00:00Z", ["Let's plan BL-204, the CSV export for the billing page.",
                                              "I'll scope BL-204 this sprint, estimate is five points."]),
                    ("2024-02-14T10:00:00Z", ["BL-204 is in code review now, waiting on QA."]),
                    ("2024-03-20T10:00:00Z", ["Quick note: BL-204 is blocked on the payments API migration."]),
                    ("2024-05-02T10:00:00Z", ["Good news, BL-204 shipped to production this morning."])]
        turns = []
        for n, (time, said) in enumerate(sessions):
            written = await ok(client, "memory_write", session=f"week-{n}", messages=[
                {"role": "user", "content": text, **({"time": time} if i == 0 else {})} for i, text in enumerate(said)],
                **scope)
            turns += [t["id"] for t in written["turns"]]
        shipped, blocked, review = turns[4], turns[3], turns[2]
        # the slot step reads a status in "is blocked", not in "shipped to production": it lifts neither here
        for question in ("What's the status of BL-204?", "What is the latest on BL-204?", "Is BL-204 done yet?"):
            hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
            assert [h["id"] for h in hits[:3]] == [shipped, blocked, review], question
        # asked what it is, the lanes' order stands: the newest turn says least about that
        hits = (await ok(client, "memory_recall", query="What is BL-204 about?", **scope))["results"]
        assert hits[0]["id"] != shipped


@pytest.mark.parametrize(("user", "both", "change", "kept"), [
    # the second verb's subject is the clause's (the brother), not the name before it (Google)
    ("kin", "My brother works at Google and lives in Oslo.", "My brother now works at Meta.",
     "Where does my brother live?"),
    # a relative named in full, then by first name: the home changes, the job stays
    ("first", "My sister Ana Souza lives in Porto and works as a nurse.", "Ana moved to Lisbon last month.",
     "What does Ana do for work?"),
    # "he" is the brother of the sentence before, not the city named in it
    ("pronoun", "My brother moved to Oslo. He works at Equinor now.", "My brother now works at Statkraft.",
     "Where does my brother live?"),
    # a job left and another joined changes the employer and leaves the home alone
    ("switch", "I work at Dell as a sales engineer and live in Austin.", "I quit Dell and joined Apple.",
     "Where do I live?"),
    # a dose changed leaves the medicine taken
    ("dose-raised", "I take lisinopril 10mg daily.", "My lisinopril dose was increased to 20mg.",
     "Do I take lisinopril?"),
])
async def test_a_change_of_one_slot_of_a_compound_memory_revises_it(minilm_server, user, both, change, kept):
    async with Client(minilm_server) as client:
        old = await ok(client, "memory_write", text=both, user_id=user, valid_from=ago(90))
        new = await ok(client, "memory_write", text=change, user_id=user)
        assert new["revised"] == [old["id"]] and new["superseded"] == [] and not new["conflicts"]
        hits = (await ok(client, "memory_recall", query=kept, user_id=user))["results"]
        shown = next(h for h in hits if h["id"] == old["id"])
        assert shown["valid_to"] is None and shown["annotations"] == {"revised_by": [new["id"]]}


async def test_in_a_conversation_the_newest_turn_that_states_the_slot_answers_first(minilm_server):
    async with Client(minilm_server) as client:
        async def session(user, sid, at, *messages):
            await ok(client, "memory_write", user_id=user, session=sid, valid_from=at,
                     messages=[{"role": role, "content": content} for role, content in messages])

        await session("talk", "s1", ago(200), ("user", "Hi! I live in Austin and I work at Dell as a tester."),
                      ("assistant", "Nice to meet you. How is Austin?"), ("user", "Hot, but I love it."))
        await session("talk", "s2", ago(20), ("user", "Big news: I moved to Denver last week."),
                      ("assistant", "I live in the cloud, so I envy you the mountains."))
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="talk"))["results"]
        assert [h["text"] for h in hits[:2]] == ["Big news: I moved to Denver last week.",
                                                  "Hi! I live in Austin and I work at Dell as a tester."]
        # named speakers: each one's "I" is that person, and the question names whom it asks about
        await session("pair", "s1", ago(300), ("Caroline", "I live in Boston with my two cats."),
                      ("Melanie", "I moved to Seattle last spring, and I love the rain."))
        await session("pair", "s2", ago(30), ("Caroline", "Guess what, I relocated to Chicago for the new job!"),
                      ("Melanie", "Chicago! I visited it once, my sister lives there."))
        hits = (await ok(client, "memory_recall", query="Where does Caroline live?", user_id="pair"))["results"]
        assert [h["speaker"] for h in hits[:2]] == ["Caroline", "Caroline"]
        assert "Chicago" in hits[0]["text"] and "Boston" in hits[1]["text"]


#: one first-person slot each: the catalogue's (name is read as an open slot) and open ones
FIRST_PERSON = [
    ("My name is Priya.", "My name is Tom."),
    ("I live in Austin.", "I live in Denver."),
    ("I work at Google.", "I work at Dell."),
    ("My phone number is 555-123-4567.", "My phone number is 555-987-6543."),
    ("My thermostat is set to 68 degrees.", "My thermostat is set to 72 degrees."),
    ("I use Firefox as my browser.", "I use Chrome as my browser."),
]


@pytest.mark.parametrize("said_by", ["speaker", "role"])
async def test_two_speakers_first_person_claims_are_two_peoples_and_ones_own_change_updates(minilm_server, said_by):
    async with Client(minilm_server) as client:
        for i, (old, new) in enumerate(FIRST_PERSON):
            scope = {"user_id": f"voices-{said_by}-{i}"}
            first = await ok(client, "memory_write", text=old, metadata={said_by: "Priya"}, valid_from=ago(10),
                             **scope)
            other = await ok(client, "memory_write", text=new, metadata={said_by: "Tom"}, valid_from=ago(5),
                             **scope)
            assert other["superseded"] == [] and other["revised"] == [] and other["conflicts"] == [], old
            assert (await ok(client, "memory_read", id=first["id"], **scope))["valid_to"] is None
            # the same speaker changing their own slot is still an update
            own = await ok(client, "memory_write", text=old, metadata={said_by: "Tom"}, **scope)
            assert own["superseded"] == [other["id"]] and own["duplicate_of"] is None, old
            assert (await ok(client, "memory_read", id=first["id"], **scope))["superseded_by"] == []


async def test_an_open_slot_question_finds_the_current_statement_first_and_marks_the_old(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "open-asked"}
        for text in ("My browser keeps crashing on video calls.", "The thermostat app needs an update."):
            await ok(client, "memory_write", text=text, valid_from=ago(2), **scope)
        firefox = await ok(client, "memory_write", text="I use Firefox as my browser.", valid_from=ago(60), **scope)
        vivaldi = await ok(client, "memory_write", text="I switched to Vivaldi.", valid_from=ago(20), **scope)
        assert vivaldi["superseded"] == [firefox["id"]]
        cold = await ok(client, "memory_write", text="My thermostat is set to 68 degrees.", valid_from=ago(60),
                        **scope)
        warm = await ok(client, "memory_write", text="My thermostat is set to 72 degrees.", valid_from=ago(20), **scope)
        assert warm["superseded"] == [cold["id"]]
        for question, now, was in (("What browser do I use?", vivaldi, firefox),
                                   ("What is my thermostat set to?", warm, cold)):
            hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
            assert hits[0]["id"] == now["id"] and was["id"] not in [h["id"] for h in hits], question
            history = (await ok(client, "memory_recall", query=question, include_retired=True, **scope))["results"]
            assert history[0]["id"] == now["id"], question
            old = next(h for h in history if h["id"] == was["id"])
            assert old["superseded_by"] == [now["id"]] and old["valid_to"] is not None


#: a scope after months of use: the user's other memories about moves, trips, cities and
#: last month, nearer to "I moved to Denver last month" than "I live in Austin, Texas" is
CROWD = [f"{who} moved to {city} last {when}." for who, city, when in (
    ("My brother", "Seattle", "year"), ("My cousin Priya", "Boston", "spring"), ("Our neighbours", "Tucson", "month"),
    ("My old roommate", "Portland", "summer"), ("My manager", "Chicago", "week"),
    ("A friend from school", "Miami", "fall"), ("My aunt", "San Diego", "winter"),
    ("The Garcias next door", "Phoenix", "month"))] + [
    f"I flew to {city} last {when} for {why}." for city, when, why in (
        ("Denver", "month", "a conference"), ("Salt Lake City", "week", "a wedding"), ("Boulder", "spring", "a hike"),
        ("Dallas", "month", "my niece's graduation"), ("Houston", "year", "a job interview"),
        ("Albuquerque", "fall", "the balloon fiesta"), ("Kansas City", "month", "a friend's birthday"),
        ("Omaha", "summer", "a family reunion"))] + [
    f"We drove to {place} last {when} and {what}." for place, when, what in (
        ("Colorado Springs", "month", "stayed two nights"), ("the Rockies", "weekend", "camped by a lake"),
        ("Santa Fe", "month", "visited the galleries"), ("Aspen", "winter", "went skiing"),
        ("Vail", "month", "rented a cabin"), ("Fort Collins", "week", "toured a brewery"))] + [
    "I moved my desk next to the window last month.", "I moved the piano into the living room.",
    "We moved the book club meetings to Thursdays last month.", "I moved my savings to a new account last month.",
    "I moved our team standup to the afternoon.", "The moving truck for my sister's place was booked last month.",
    "I helped my parents move into their new condo last month.", "I'm thinking about moving to a bigger apartment.",
    "Last month I finally unpacked the last moving boxes from the garage.", "I visited Denver's art museum last month.",
    "I spent last month working remotely from a cafe in Denver.", "We looked at houses in Denver last month.",
]


async def test_a_change_supersedes_a_memory_the_nearest_neighbours_miss_in_a_crowded_scope(tmp_path):
    from worlddb.memory import slot_readings, update_candidates
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet, scope_anchors

    path, scope = tmp_path / "crowded.db", ScopeSet((("user", "crowd"),))
    new_text, kitten_text = "I moved to Denver last month.", "We adopted a tabby kitten last week."
    with Engine.open(path) as engine:  # the default model, as the server opens it
        old = engine.write_memory("I live in Austin, Texas.", scope, valid_from=ago(400))
        pets = engine.write_memory("I have a golden retriever named Max.", scope, valid_from=ago(390))
        engine.write_memories([{"text": text, "valid_from": ago(300 - i)} for i, text in enumerate(CROWD)], scope)
        engine.warm()
        worlds = scope_anchors(engine.store, scope)

        def candidates(text: str, claimed: bool) -> dict[str, float]:
            """What the write of `text` gives its judge: the nearest only, or with the claimed."""
            prepared = engine.prepare_write(text, scope)
            wanted = slot_readings.claim_keys(text, prepared.plans[0].facts, "crowd") if claimed else ()
            return update_candidates.find(engine.services, worlds, text, prepared.index[0].vector,
                                       prepared.index[0].units, wanted=wanted)

        # the precondition: the old memory is not among the candidates the vectors give
        nearest = candidates(new_text, claimed=False)
        assert len(nearest) == update_candidates.CANDIDATES and old.id not in nearest
        assert old.id in candidates(new_text, claimed=True)
        assert pets.id in candidates(kitten_text, claimed=True)
    server = build_server(ServerConfig(db=str(path), default_user=None, background=False))
    async with Client(server) as client:
        new = await ok(client, "memory_write", text=new_text, user_id="crowd")
        assert new["superseded"] == [old.id] and not new["conflicts"]
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="crowd"))["results"]
        assert old.id not in [h["id"] for h in hits]
        assert (await ok(client, "memory_read", id=old.id, user_id="crowd"))["superseded_by"] == [new["id"]]
        # a control: another pet is an addition, and the index hands the judge the first one
        kitten = await ok(client, "memory_write", text=kitten_text, user_id="crowd")
        assert kitten["superseded"] == [] and kitten["conflicts"] == [] and not kitten.get("revised")
        for memory in (pets.id, new["id"]):
            shown = await ok(client, "memory_read", id=memory, user_id="crowd")
            assert shown["valid_to"] is None and not shown["superseded_by"] and not shown["contradicts"]


#: memories about the user's work that state no employer (none claims the slot)
WORK = [f"{what} at work {when}." for what, when in (
    ("The printer jammed twice", "today"), ("The coffee machine broke again", "this morning"),
    ("We had a fire drill", "on Tuesday"), ("My desk got moved next to the window", "last week"),
    ("The team lunch ran long", "yesterday"), ("The wifi kept dropping", "all afternoon"),
    ("I gave a demo of the new dashboard", "on Friday"), ("We celebrated Priya's birthday", "with cake"),
    ("The elevator was out of service", "all day"), ("I stayed late to finish the quarterly report", "on Thursday"),
    ("The parking garage filled up early", "today"), ("We tried a new project tracker", "this sprint"))] + [
    "Work has been stressful since the reorganisation.", "Where do we keep the spare keys at work?",
    "My commute to work takes forty minutes by train.", "I walked to work in the rain this morning.",
    "I worked from home on Monday.", "Work trips always leave me exhausted.", "I bought a new bag for work.",
    "After work I went climbing with Dana.", "I have too many meetings at work.",
    "The new intern at work asks great questions.", "I got a compliment on my work from the director.",
]


async def test_a_slot_question_finds_the_memory_that_states_it_below_the_lanes_window(tmp_path):
    from worlddb.memory.engine import Engine
    from worlddb.memory.scopes import ScopeSet

    path, scope = tmp_path / "work.db", ScopeSet((("user", "crowd"),))
    with Engine.open(path) as engine:  # the default model, as the server opens it
        job = engine.write_memory("I started my first week at Stripe as a backend engineer.", scope,
                                  valid_from=ago(400))
        engine.write_memories([{"text": text, "valid_from": ago(300 - i)} for i, text in enumerate(WORK)], scope)
    server = build_server(ServerConfig(db=str(path), default_user=None, background=False))
    async with Client(server) as client:
        hits = (await ok(client, "memory_recall", query="Where do I work?", user_id="crowd", limit=5))["results"]
        # no lane ranks it near the top ("work" is in every other memory): the claims index
        # brings it, and the slot step puts the memory that states the slot first
        assert hits[0]["id"] == job.id and hits[0]["lanes"] == {"claims": 1, "slot": 1}
        # a change of employer supersedes it, and the question then finds the new one
        moved = await ok(client, "memory_write", text="I joined Airbnb as a staff engineer last month.",
                         user_id="crowd")
        assert moved["superseded"] == [job.id]
        hits = (await ok(client, "memory_recall", query="Where do I work?", user_id="crowd", limit=5))["results"]
        assert hits[0]["id"] == moved["id"] and job.id not in [h["id"] for h in hits]
        # pinned to a time before the change, the question is answered by the lanes alone
        pinned = await ok(client, "memory_recall", query="Where do I work?", user_id="crowd", limit=5,
                          as_of=ago(200))
        assert all("claims" not in h["lanes"] for h in pinned["results"])


@pytest.mark.parametrize(("user", "old", "new", "question", "kept"), [
    ("others-1", "I work at Dell and my sister lives in Paris.", "I started working at HP.",
     "Where does my sister live?", "sister"),
    ("others-2", "Tom lives in Boston and Ann lives in Austin.", "Tom moved to Denver.", "Where does Ann live?", "Ann"),
])
async def test_a_change_of_one_persons_slot_leaves_what_the_memory_says_of_another_current(
        minilm_server, user, old, new, question, kept):
    async with Client(minilm_server) as client:
        before = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(90))
        after = await ok(client, "memory_write", text=new, user_id=user)
        assert after["superseded"] == [] and after["revised"] == [before["id"]]
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        found = next(h for h in hits if h["id"] == before["id"])  # still current, and marked
        assert found["valid_to"] is None and found["annotations"]["revised_by"] == [after["id"]]


async def test_a_new_role_leaves_the_employer_the_old_memory_names_current(minilm_server):
    # a promotion is a role held where the old one was: the employer stays current, its fact too
    async with Client(minilm_server) as client:
        scope = {"user_id": "promoted"}
        before = await ok(client, "memory_write", text="I'm a software engineer at Shopify.", valid_from=ago(200),
                          **scope)
        after = await ok(client, "memory_write", text="I got promoted to staff engineer.", valid_from=ago(100),
                         **scope)
        assert after["superseded"] == [] and after["revised"] == [before["id"]]
        hits = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert before["id"] in [h["id"] for h in hits[:2]]
        read = await ok(client, "memory_read", id=before["id"], **scope)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [after["id"]]
        # a new employer still ends the role held at the old one
        moved = await ok(client, "memory_write", text="I'm now at Stripe.", **scope)
        assert moved["superseded"] == [before["id"]]


async def test_history_written_after_what_followed_it_is_ended_by_the_later_memory(minilm_server):
    # whichever order they are written in, valid time orders them: Austin held until Boston began
    async with Client(minilm_server) as client:
        scope = {"user_id": "backfill"}
        boston = await ok(client, "memory_write", text="I live in Boston.", valid_from=ago(30), **scope)
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=ago(400), **scope)
        assert austin["superseded_by"] == [boston["id"]] and austin["conflicts"] == [] and austin["superseded"] == []
        read = await ok(client, "memory_read", id=austin["id"], **scope)
        assert read["valid_to"] == boston["valid_from"] and read["superseded_by"] == [boston["id"]]
        hits = (await ok(client, "memory_recall", query="Where do I live?", **scope))["results"]
        assert hits[0]["id"] == boston["id"] and austin["id"] not in [h["id"] for h in hits]
        then = (await ok(client, "memory_recall", query="Where do I live?", as_of=ago(100), **scope))["results"]
        assert then[0]["id"] == austin["id"]
        # what the late history also says stays current: the later memory changes it in part
        both = await ok(client, "memory_write", text="I live in Chicago and work at Dell.", valid_from=ago(200),
                        **scope)
        assert both["revised_by"] == [boston["id"]] and both["superseded_by"] == []
        read = await ok(client, "memory_read", id=both["id"], **scope)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [boston["id"]]


@pytest.mark.parametrize("order", [(0, 2, 3, 1), (3, 0, 2, 1), (0, 1, 2, 3)])
async def test_history_written_inside_a_succession_takes_its_place_in_it(minilm_server, order):
    # four homes in valid time; whatever order they are written in, each ends where the next begins
    homes = [("I live in Austin.", 700), ("I live in Denver.", 365), ("I live in Boston.", 200),
             ("I live in Chicago.", 30)]
    async with Client(minilm_server) as client:
        scope = {"user_id": f"inside-{''.join(map(str, order))}"}
        job = await ok(client, "memory_write", text="I work at Dell.", valid_from=ago(800), **scope)
        ids = {}
        for k in order:
            text, days = homes[k]
            ids[k] = (await ok(client, "memory_write", text=text, valid_from=ago(days), **scope))["id"]
        listed = {m["id"]: m for m in (await ok(client, "memory_list", include_retired=True, **scope))["memories"]}
        for k in range(3):
            assert listed[ids[k]]["valid_to"] == listed[ids[k + 1]]["valid_from"], homes[k]
            # the first named is the next home, though a later one may have been written before it
            assert listed[ids[k]]["superseded_by"][0] == ids[k + 1], homes[k]
        assert listed[ids[3]]["valid_to"] is None and listed[job["id"]]["valid_to"] is None
        for days, k in ((500, 0), (300, 1), (100, 2), (10, 3)):
            then = (await ok(client, "memory_recall", query="Where do I live?", as_of=ago(days), **scope))["results"]
            assert [h["id"] for h in then if h["id"] in ids.values()] == [ids[k]], days


async def test_every_read_names_what_ended_a_memory_in_the_order_it_began(minilm_server):
    # Chicago, written last, took its place between Boston and Austin; Austin's edge to Boston stays
    async with Client(minilm_server) as client:
        scope = {"user_id": "late-middle"}
        boston = await ok(client, "memory_write", text="I live in Boston.", valid_from=ago(400), **scope)
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=ago(30), **scope)
        chicago = await ok(client, "memory_write", text="I live in Chicago.", valid_from=ago(200), **scope)
        assert chicago["superseded"] == [boston["id"]]
        in_order = [chicago["id"], austin["id"]]
        read = await ok(client, "memory_read", id=boston["id"], **scope)
        assert read["valid_to"] == chicago["valid_from"] and read["superseded_by"] == in_order
        listed = {m["id"]: m for m in (await ok(client, "memory_list", include_retired=True, **scope))["memories"]}
        assert listed[boston["id"]]["superseded_by"] == in_order
        hits = (await ok(client, "memory_recall", query="Boston", include_retired=True, **scope))["results"]
        assert next(h for h in hits if h["id"] == boston["id"])["superseded_by"] == in_order
        read = await ok(client, "memory_read", id=austin["id"], **scope)
        assert read["supersedes"] == [boston["id"], chicago["id"]]


def _facts_by_relation(read: dict) -> dict[str, str | None]:
    return {f["relation"]: f["valid_to"] for f in read["facts"]}


async def test_history_written_late_ends_each_part_of_a_memory_where_its_own_change_begins(minilm_server):
    async with Client(minilm_server) as client:
        # a move written late changes the home only: the job changed later, by another memory
        scope = {"user_id": "parts-late-move"}
        both = await ok(client, "memory_write", text="I live in Austin and work at Acme.", valid_from=ago(1500),
                        **scope)
        globex = await ok(client, "memory_write", text="I work at Globex now.", valid_from=ago(700), **scope)
        boston = await ok(client, "memory_write", text="I moved to Boston.", valid_from=ago(1100), **scope)
        assert boston["revised"] == [both["id"]] and boston["superseded"] == []
        facts = _facts_by_relation(await ok(client, "memory_read", id=both["id"], **scope))
        assert facts["works_at"] == globex["valid_from"] and facts["lives_in"] == boston["valid_from"]
        # the memory of both parts written after both changes: each part ends at its own change
        scope = {"user_id": "parts-late-both"}
        boston = await ok(client, "memory_write", text="I moved to Boston.", valid_from=ago(1100), **scope)
        globex = await ok(client, "memory_write", text="I work at Globex now.", valid_from=ago(700), **scope)
        both = await ok(client, "memory_write", text="I live in Austin and work at Acme.", valid_from=ago(1500),
                        **scope)
        assert sorted(both["revised_by"]) == sorted([boston["id"], globex["id"]])
        facts = _facts_by_relation(await ok(client, "memory_read", id=both["id"], **scope))
        assert facts["works_at"] == globex["valid_from"] and facts["lives_in"] == boston["valid_from"]
        now = (await ok(client, "memory_recall", query="Where do I work?", **scope))["results"]
        assert now[0]["id"] == globex["id"]


async def test_history_written_late_ends_what_held_then_though_what_ended_it_was_retired(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "late-retired"}
        austin = await ok(client, "memory_write", text="I live in Austin.", valid_from=ago(700), **scope)
        boston = await ok(client, "memory_write", text="I live in Boston.", valid_from=ago(30), **scope)
        await ok(client, "memory_retire", id=boston["id"], **scope)
        denver = await ok(client, "memory_write", text="I live in Denver.", valid_from=ago(365), **scope)
        assert denver["superseded"] == [austin["id"]]
        read = await ok(client, "memory_read", id=austin["id"], **scope)
        assert read["valid_to"] == denver["valid_from"]
        then = (await ok(client, "memory_recall", query="Where do I live?", as_of=ago(200), **scope))["results"]
        assert [h["id"] for h in then if "live" in h["text"]] == [denver["id"]]


@pytest.mark.parametrize(("now", "before", "question"), [
    ("I live in Denver.", "I lived in Boston.", "Where do I live now?"),
    ("I work at Globex.", "I worked at Acme.", "Where do I work?"),
    ("I'm a teacher.", "I was a nurse.", "What is my job?"),
])
async def test_a_value_held_before_written_after_the_current_one_does_not_answer_first(minilm_server, now, before,
                                                                                       question):
    async with Client(minilm_server) as client:
        scope = {"user_id": f"held-before-{now.split()[-1].strip('.').lower()}"}
        current = await ok(client, "memory_write", text=now, valid_from=ago(30), **scope)
        past = await ok(client, "memory_write", text=before, **scope)
        assert past["superseded"] == [] and past["revised"] == []
        hits = (await ok(client, "memory_recall", query=question, **scope))["results"]
        assert hits[0]["id"] == current["id"] and hits[0]["valid_to"] is None


async def test_history_written_late_is_judged_by_the_later_memorys_own_words(minilm_server):
    # the later memory's words decide, as if it had been written second: an end ends the older
    # one, and a week's exception leaves the weekly class current
    async with Client(minilm_server) as client:
        scope = {"user_id": "backfill-words"}
        quit_ = await ok(client, "memory_write", text="I quit my job at Google.", valid_from=ago(10), **scope)
        job = await ok(client, "memory_write", text="I work at Google.", valid_from=ago(400), **scope)
        assert job["superseded_by"] == [quit_["id"]]
        once = await ok(client, "memory_write", text="This week yoga is on Tuesday.", valid_from=ago(3), **scope)
        weekly = await ok(client, "memory_write", text="I have yoga every Monday at 6pm.", valid_from=ago(700),
                          **scope)
        assert weekly["superseded_by"] == [] and weekly["conflicts"] == [] and once["id"] not in weekly["superseded"]
        read = await ok(client, "memory_read", id=weekly["id"], **scope)
        assert read["valid_to"] is None


async def test_a_user_whose_id_is_written_as_a_name_keeps_their_facts_beside_a_namesake(minilm_server):
    # the user id "Bob", written as the text writes the coworker's name
    async with Client(minilm_server) as client:
        scope = {"user_id": "Bob"}
        home = await ok(client, "memory_write", text="I live in Austin.", valid_from=ago(60), **scope)
        diet = await ok(client, "memory_write", text="I'm a vegetarian.", valid_from=ago(60), **scope)
        coworker = await ok(client, "memory_write", text="My coworker Bob lives in Dallas.", **scope)
        vegan = await ok(client, "memory_write", text="Bob is vegan.", **scope)
        assert coworker["superseded"] == [] and vegan["superseded"] == []
        for memory in (home, diet):
            assert (await ok(client, "memory_read", id=memory["id"], **scope))["valid_to"] is None
        moved = await ok(client, "memory_write", text="I moved to Denver.", **scope)
        assert moved["superseded"] == [home["id"]]


async def test_a_change_of_a_person_named_by_an_alias_ends_what_it_changes(minilm_server):
    """The stored fact names the entity ("Alice Smith"), the texts its alias ("Alice"): one person."""
    async with Client(minilm_server) as client:
        scope = {"user_id": "alias-change"}
        known = await ok(client, "memory_write", text="Alice Smith is my coworker.", valid_from=ago(30),
                         entities=[{"name": "Alice Smith", "type": "person", "aliases": ["Alice"]}], **scope)
        berlin = await ok(client, "memory_write", text="Alice lives in Berlin.", valid_from=ago(20), **scope)
        munich = await ok(client, "memory_write", text="Alice moved to Munich.", valid_from=ago(5), **scope)
        assert munich["superseded"] == [berlin["id"]] and munich["revised"] == []
        alice = next(e["id"] for e in known["entities"] if e["name"] == "Alice Smith")
        facts = (await ok(client, "memory_read", id=alice, **scope))["entity"]["facts"]
        assert [f["object"] for f in facts if f["relation"] == "lives_in" and f["valid_to"] is None] == ["Munich"]


@pytest.mark.parametrize(("user", "old", "new", "kept"), [
    # the user's job, when the sister's changes; a fact of the user names the scope's user
    ("facts-1", "I work at Dell and my sister Ana works at Canon.", "Ana started at Nikon.", "facts-1"),
    ("facts-2", "Lena lives in Graz and Max lives in Linz.", "Max moved to Vienna.", "Lena"),
])
async def test_a_revision_ends_no_fact_of_a_subject_the_change_is_not_about(minilm_server, user, old, new, kept):
    async with Client(minilm_server) as client:
        before = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(90))
        after = await ok(client, "memory_write", text=new, user_id=user)
        assert after["revised"] == [before["id"]]
        facts = (await ok(client, "memory_read", id=before["id"], user_id=user))["facts"]
        assert [f["valid_to"] for f in facts if f["subject"] == kept and f["relation"] in ("works_at", "lives_in")] \
            == [None]


async def test_an_amend_to_what_another_current_memory_says_is_refused_and_writes_nothing(minilm_server):
    async with Client(minilm_server) as client:
        coffee = await ok(client, "memory_write", text="My favourite drink is coffee.", user_id="amend-dup")
        dog = await ok(client, "memory_write", text="My dog is called Rex.", user_id="amend-dup")
        assert (await ok(client, "memory_write", text="My favourite drink is coffee.",
                         user_id="amend-dup"))["duplicate_of"] == coffee["id"]
        before = await ok(client, "memory_list", user_id="amend-dup")
        error = await fails(client, "memory_amend", id=dog["id"], text="My favourite drink is coffee.",
                            user_id="amend-dup")
        assert f"memory {coffee['id']} already says this" in error and "memory_retire" in error
        assert await ok(client, "memory_list", user_id="amend-dup") == before


async def test_an_amend_marks_the_other_memories_its_change_reaches_and_closes_none(minilm_server):
    """A write would supersede "I live in Austin." and revise the longer memory; an amend of the
    first corrects that one alone and marks the other, which stays current."""
    async with Client(minilm_server) as client:
        austin = await ok(client, "memory_write", text="I live in Austin.", user_id="amend-marks", valid_from=ago(90))
        both = await ok(client, "memory_write", text="I live in Austin and I work at Dell.", user_id="amend-marks",
                        valid_from=ago(90))
        amended = await ok(client, "memory_amend", id=austin["id"], text="I live in Houston.", user_id="amend-marks")
        assert amended["supersedes"] == austin["id"] and amended["revised"] == [both["id"]]
        read = await ok(client, "memory_read", id=both["id"], user_id="amend-marks")
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [amended["id"]]
        assert read["facts"] and all(f["valid_to"] is None for f in read["facts"])  # its facts stay current
        hits = (await ok(client, "memory_recall", query="Where do I live?", user_id="amend-marks"))["results"]
        assert hits[0]["text"] == "I live in Houston."
        assert next(h for h in hits if h["id"] == both["id"])["annotations"]["revised_by"] == [amended["id"]]


@pytest.mark.parametrize(("user", "old", "new", "metadata", "question"), [
    # the one a relative clause is about, after the speaker's object, is not the speaker
    ("someone-who", "I work at Dell.", "I know someone who works at Google.", None, "Where do I work?"),
    ("friend-who", "I live in Austin.", "I helped a friend who moved to Denver.", None, "Where do I live?"),
    # a change for a day still to come leaves what holds until then current
    ("on-date", "I work at Google.", "I'm starting at Stripe on January 5th.", None, "Where do I work?"),
    ("on-monday", "I work at Google.", "I start at Stripe on Monday.", None, "Where do I work?"),
    ("on-the-15th", "I live in Austin.", "We're moving to Denver on the 15th.", None, "Where do I live?"),
    # an assistant's first person is its own
    ("assistant-name", "My name is Dana.", "My name is Claude, nice to meet you.", {"speaker": "assistant"},
     "What is my name?"),
    ("assistant-job", "I work at Google.", "I work for Anthropic.", {"role": "assistant"}, "Where do I work?"),
])
async def test_what_is_not_the_users_own_change_now_leaves_the_old_memory_current_and_first(
        minilm_server, user, old, new, metadata, question):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(60))
        second = await ok(client, "memory_write", text=new, user_id=user,
                          **({"metadata": metadata} if metadata else {}))
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert hits[0]["id"] == first["id"] and hits[0]["superseded_by"] == [] and hits[0]["valid_to"] is None


async def test_an_assistants_own_words_make_no_fact_of_the_user(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "assistant-facts"}
        mine = await ok(client, "memory_write", text="I work at Google.", **scope)
        said = await ok(client, "memory_write", text="I work for Anthropic.", metadata={"speaker": "assistant"},
                        **scope)
        assert said["facts"] == [] and "assistant-facts" not in [e["name"] for e in said["entities"]]
        me = next(e["id"] for e in mine["entities"] if e["name"] == "assistant-facts")
        entity = (await ok(client, "memory_read", id=me, **scope))["entity"]
        assert [m["id"] for m in entity["mentions"]] == [mine["id"]]


@pytest.mark.parametrize(("user", "old", "new", "left"), [
    ("two-dogs", "I have two dogs, Rex and Fido.", "Fido died last night.", "Rex"),
    ("two-cats", "We have two cats, Luna and Milo.", "Our cat Milo passed away.", "Luna"),
])
async def test_one_of_the_pets_a_count_names_ending_revises_the_memory_of_them(minilm_server, user, old, new, left):
    async with Client(minilm_server) as client:
        first = await ok(client, "memory_write", text=old, user_id=user, valid_from=ago(300))
        second = await ok(client, "memory_write", text=new, user_id=user)
        assert second["revised"] == [first["id"]] and second["superseded"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is None and read["annotations"]["revised_by"] == [second["id"]]
        # the pet left is still the speaker's: a question of pets finds the memory naming it, current
        hits = (await ok(client, "memory_recall", query=f"Is {left} still my pet?", user_id=user))["results"]
        assert [h["valid_to"] for h in hits if h["id"] == first["id"]] == [None]


async def test_a_change_of_a_relative_named_by_the_kin_word_alone_changes_none_of_two_of_that_word(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "two-sisters"}
        ana = await ok(client, "memory_write", text="My sister Ana lives in Porto.", valid_from=ago(90), **scope)
        maria = await ok(client, "memory_write", text="My sister Maria lives in Lisbon.", valid_from=ago(60), **scope)
        moved = await ok(client, "memory_write", text="My sister just moved to Faro.", **scope)
        assert moved["revised"] == [] and moved["superseded"] == [] and moved["conflicts"] == []
        assert {ana["id"], maria["id"]} <= set(moved["related"])
        # with one sister named, the change is hers
        one = {"user_id": "one-sister"}
        ana = await ok(client, "memory_write", text="My sister Ana lives in Porto.", valid_from=ago(90), **one)
        moved = await ok(client, "memory_write", text="My sister just moved to Faro.", **one)
        assert moved["revised"] == [ana["id"]]


@pytest.mark.parametrize("old", ["I'm married to Chris.", "My husband is Chris."])
async def test_news_of_someone_of_a_person_the_old_memory_names_marks_nothing(minilm_server, old):
    async with Client(minilm_server) as client:
        scope = {"user_id": f"chris-{len(old)}"}
        first = await ok(client, "memory_write", text=old, valid_from=ago(300), **scope)
        news = await ok(client, "memory_write", text="Chris's sister is getting divorced.", **scope)
        assert news["revised"] == [] and news["superseded"] == [] and news["conflicts"] == []
        read = await ok(client, "memory_read", id=first["id"], **scope)
        assert read["valid_to"] is None and read["annotations"].get("revised_by", []) == []


@pytest.mark.parametrize(("user", "mine", "news", "question"), [
    # news of someone else, by name or by kin word, of what the speaker said of their own
    ("kenji-haircut", "I have a haircut on Friday at 4pm.", "Kenji's haircut got moved to Saturday.",
     "When is my haircut?"),
    ("kenji-job", "I work at Google.", "Kenji quit his job at Google.", "Where do I work?"),
    ("heard-job", "I work at Google.", "I heard Kenji quit his job at Google.", "Where do I work?"),
    ("sister-dentist", "My dentist appointment is Friday at 9am.",
     "My sister's dentist appointment got moved to Monday.", "When is my dentist appointment?"),
    ("kenji-wedding", "Our wedding is on June 14, 2027.", "Kenji's wedding got moved to September.",
     "When is our wedding?"),
    ("dad-moved", "I live in Austin.", "Dad moved to Denver.", "Where do I live?"),
    # the speaker's own change, of what they said of someone else's
    ("own-haircut", "Kenji's haircut is on Friday at 4pm.", "My haircut got moved to Saturday.",
     "When is Kenji's haircut?"),
    ("own-dentist", "My sister's dentist appointment is Friday at 9am.", "My dentist appointment got moved to Monday.",
     "When is my sister's dentist appointment?"),
    ("parents-home", "My parents live in Ohio.", "We moved to Texas last year.", "Where do my parents live?"),
])
async def test_news_of_another_person_marks_nothing_the_speaker_said_of_their_own_nor_the_reverse(
        minilm_server, user, mine, news, question):
    async with Client(minilm_server) as client:
        scope = {"user_id": user, "metadata": {"speaker": "user"}}
        first = await ok(client, "memory_write", text=mine, valid_from=ago(60), **scope)
        second = await ok(client, "memory_write", text=news, **scope)
        assert second["superseded"] == [] and second["revised"] == [] and second["conflicts"] == []
        read = await ok(client, "memory_read", id=first["id"], user_id=user)
        assert read["valid_to"] is None and read["annotations"].get("revised_by", []) == []
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert hits[0]["id"] == first["id"]


@pytest.mark.parametrize(("user", "old", "new", "question"), [
    # (a thing moved to a time named, by its name, ends the old time: tests/server/test_rescheduled.py)
    ("pushed-a-week", "Our launch party is on March 3.", "We pushed the launch party back a week.",
     "When is our launch party?"),
    ("theirs-moved", "Kenji's haircut is on Friday at 4pm.", "Kenji's haircut got moved to Saturday.",
     "When is Kenji's haircut?"),
])
async def test_a_time_moved_by_its_own_people_revises_the_time_and_answers_first(minilm_server, user, old, new,
                                                                                  question):
    async with Client(minilm_server) as client:
        scope = {"user_id": user, "metadata": {"speaker": "user"}}
        first = await ok(client, "memory_write", text=old, valid_from=ago(60), **scope)
        second = await ok(client, "memory_write", text=new, **scope)
        assert second["revised"] == [first["id"]] and second["superseded"] == []
        hits = (await ok(client, "memory_recall", query=question, user_id=user))["results"]
        assert [h["id"] for h in hits[:2]] == [second["id"], first["id"]]
        assert hits[1]["annotations"]["revised_by"] == [second["id"]]


#: two people of one first name, and a change said of the first name alone
NAMESAKES = [
    ("home", ("Sam Lee lives in Seattle.", "Sam Patel lives in Toronto."), "Sam moved to Vancouver.",
     "Where does {} live?"),
    ("home-other-order", ("Sam Patel lives in Toronto.", "Sam Lee lives in Seattle."), "Sam moved to Vancouver.",
     "Where does {} live?"),
    ("relocated", ("Dana Cole lives in Austin.", "Dana Park lives in Boston."), "Dana relocated to Denver.",
     "Where does {} live?"),
    ("job", ("Priya Shah works at Google.", "Priya Natarajan works at Initech."), "Priya now works at Stripe.",
     "Where does {} work?"),
]


@pytest.mark.parametrize(("user", "olds", "change", "question"), NAMESAKES)
async def test_a_change_said_of_a_first_name_two_known_people_share_is_neither_ones(minilm_server, user, olds,
                                                                                     change, question):
    async with Client(minilm_server) as client:
        scope = {"user_id": f"namesakes-{user}"}
        first = [await ok(client, "memory_write", text=text, valid_from=ago(90 - i), **scope)
                 for i, text in enumerate(olds)]
        new = await ok(client, "memory_write", text=change, **scope)
        assert new["revised"] == [] and new["superseded"] == [] and new["conflicts"] == []
        for old, text in zip(first, olds):
            read = await ok(client, "memory_read", id=old["id"], **scope)
            assert read["valid_to"] is None and read["annotations"].get("revised_by", []) == []
            # the slot step answers a full name with that person's own memory, not with the change
            who = " ".join(text.split()[:2])
            hits = (await ok(client, "memory_recall", query=question.format(who), **scope))["results"]
            assert hits[0]["id"] == old["id"] and hits[0]["lanes"].get("slot") == 1
            assert all("slot" not in h["lanes"] for h in hits if h["id"] == new["id"])


async def test_a_change_said_of_a_first_name_one_known_person_has_is_theirs(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "one-sam"}
        home = await ok(client, "memory_write", text="Sam Lee lives in Seattle.", valid_from=ago(90), **scope)
        moved = await ok(client, "memory_write", text="Sam moved to Vancouver.", **scope)
        assert home["id"] in moved["superseded"] + moved["revised"]
        hits = (await ok(client, "memory_recall", query="Where does Sam Lee live?", **scope))["results"]
        assert hits[0]["id"] == moved["id"] and hits[0]["lanes"].get("slot") == 1


async def test_a_turn_of_a_speaker_named_by_a_first_name_two_known_people_share_answers_for_neither(minilm_server):
    async with Client(minilm_server) as client:
        scope = {"user_id": "sam-said"}
        lee = await ok(client, "memory_write", text="Sam Lee lives in Seattle.", valid_from=ago(90), **scope)
        patel = await ok(client, "memory_write", text="Sam Patel lives in Toronto.", valid_from=ago(80), **scope)
        await ok(client, "memory_write", session="s1", valid_from=ago(5),
                 messages=[{"role": "Sam", "content": "I just moved to Vancouver."},
                           {"role": "assistant", "content": "Congratulations on the move!"}], **scope)
        for old, who in ((lee, "Sam Lee"), (patel, "Sam Patel")):
            hits = (await ok(client, "memory_recall", query=f"Where does {who} live?", **scope))["results"]
            assert hits[0]["id"] == old["id"] and hits[0]["lanes"].get("slot") == 1
            assert all("slot" not in h["lanes"] for h in hits if "Vancouver" in h["text"])
        # with one Sam known, Sam's own turn is theirs, and the newest statement of the slot
        one = {"user_id": "one-sam-said"}
        await ok(client, "memory_write", text="Sam Lee lives in Seattle.", valid_from=ago(90), **one)
        await ok(client, "memory_write", session="s1", valid_from=ago(5),
                 messages=[{"role": "Sam", "content": "I just moved to Vancouver."},
                           {"role": "assistant", "content": "Congratulations on the move!"}], **one)
        hits = (await ok(client, "memory_recall", query="Where does Sam Lee live?", **one))["results"]
        assert hits[0]["text"] == "I just moved to Vancouver." and hits[0]["lanes"].get("slot") == 1


async def test_a_superseded_memory_that_matches_best_gives_its_place_to_what_replaced_it(minilm_server):
    # the question matches the old memory best; a plain recall hides it, and the memory that
    # replaced it answers in its place rather than the next best match
    async with Client(minilm_server) as client:
        scope = {"user_id": "standin"}
        old = await ok(client, "memory_write", text="Our package registry is Artifactory.", valid_from=ago(60), **scope)
        await ok(client, "memory_write", text="The package registry was down for an hour on Monday.",
                 valid_from=ago(30), **scope)
        new = await ok(client, "memory_write", text="We replaced Artifactory with Nexus last sprint.", **scope)
        assert new["superseded"] == [old["id"]]
        hits = (await ok(client, "memory_recall", query="Where do we publish packages?", **scope))["results"]
        assert hits[0]["id"] == new["id"] and hits[0]["lanes"]["successor"] == 1
        assert [h["id"] for h in hits].count(new["id"]) == 1 and old["id"] not in [h["id"] for h in hits]
        # with the history the old memory is shown, closed, just after the memory that replaced it
        history = (await ok(client, "memory_recall", query="Where do we publish packages?", include_retired=True,
                            **scope))["results"]
        assert [h["id"] for h in history[:2]] == [new["id"], old["id"]]
        assert history[1]["superseded_by"] == [new["id"]] and history[1]["valid_to"] is not None
