"""Open slots: the reading of values and changes outside the catalogue, and the judge's verdicts on them."""

from __future__ import annotations

import pytest

from worlddb.extract.judge import BuiltinJudge, Statement
from worlddb.extract.open_slots import read_open, value_kind
from worlddb.extract.slots import asked, read

JUDGE = BuiltinJudge()


def slots_of(text: str) -> set[tuple[str, str, str, str]]:
    return {(c.subject, c.attribute, c.value, c.qualifier) for c in read(text).claims}


def outcome(old: str, new: str, similarity: float = 0.6) -> str:
    olds = [Statement("old", old, 1, read(old), similarity)]
    return JUDGE.judge(Statement("new", new, 10, read(new)), olds)[0].outcome


OPEN_EXAMPLES = [
    ("Our alarm code is 7731.", ("me", "np:alarm code", "7731", "")),
    ("The garage door code was changed to 2290.", ("me", "np:garage door code", "2290", "")),
    ("We set the thermostat to 68.", ("me", "np:thermostat", "68", "")),
    ("The thermostat is set to 70.", ("me", "np:thermostat", "70", "")),   # a setting said as one
    ("My alarm is set to 6:30.", ("me", "np:alarm", "6:30", "")),          # a time's colon is in its value
    ("I reset my router password to bluejay.", ("me", "np:router password", "bluejay", "")),
    ("So the new gate pin is 4417 now.", ("me", "np:gate pin", "4417", "")),
    ("Priya's username is pkdev.", ("priya", "np:username", "pkdev", "")),
    ("We use Figma as our design tool.", ("me", "np:design tool", "Figma", "")),
    ("I use Firefox as my browser at work.", ("me", "np:browser", "Firefox", "work")),
    ("Marco prefers green tea.", ("marco", "prefers:drink", "green tea", "")),
    ("Marco prefers espresso after dinner.", ("marco", "prefers:drink", "espresso", "dinner")),
    ("I now prefer aisle seats.", ("me", "prefers:seat", "aisle seats", "")),
    ("Lena likes espresso better these days.", ("lena", "prefers:drink", "espresso", "")),
    ("Omar likes cocoa more than juice now.", ("omar", "prefers:drink", "cocoa", "")),
    ("My running shoes are Nike Pegasus.", ("me", "np:running shoe", "Nike Pegasus", "")),  # a plural thing
    ("We migrated over to Linear.", ("me", "replaces", "Linear", "")),
    ("I switched to Bitwarden at home.", ("me", "replaces", "Bitwarden", "home")),
    ("I've switched to Arc.", ("me", "replaces", "Arc", "")),                      # a contracted auxiliary
    ("I'm using Obsidian now.", ("me", "uses", "Obsidian", "")),
    ("I use VS Code for coding.", ("me", "uses", "VS Code", "coding")),            # a purpose is a context
    ("I've moved over to Neovim for coding.", ("me", "replaces", "Neovim", "coding")),
    ("I cancelled Planet Fitness and joined Equinox.", ("me", "replaces", "Equinox", "")),
    ("We dropped Comcast and signed up with Verizon Fios.", ("me", "replaces", "Verizon Fios", "")),
    # what a part of a system is made with or runs on, and a URL as a value
    ("The backend is written in Go.", ("me", "np:backend", "Go", "")),
    ("Our docs site is hosted on Netlify.", ("me", "np:doc site", "Netlify", "")),       # singular
    ("We ported the mobile app to Flutter.", ("me", "np:mobile app", "Flutter", "")),
    ("We moved QA to BrowserStack.", ("me", "np:qa", "BrowserStack", "")),                # an acronym
    ("We use Terraform for the infrastructure.", ("me", "np:infrastructure", "Terraform", "")),
    ("Our status page URL is https://status.example.org.", ("me", "np:status page url", "https://status.example.org",
                                                            "")),
    # a subject left out, and a detail after the value
    ("Switched to Neovim last week.", ("me", "replaces", "Neovim", "")),
    ("Moved the whole suite to Vitest last sprint; CI time dropped by half.", ("me", "np:suite", "Vitest", "")),
    ("The API is hosted on Heroku, two standard dynos.", ("me", "np:api", "Heroku", "")),
    ("We use Yarn 1 for the monorepo, with workspaces for each package.", ("me", "np:monorepo", "Yarn 1", "")),
    ("My work laptop is a ThinkPad X1 Carbon running Ubuntu.", ("me", "np:work laptop", "ThinkPad X1 Carbon", "")),
    ("I quit Spotify and got Apple Music because it's cheaper.", ("me", "replaces", "Apple Music", "")),
    ("The frontend is a Vue 2 app with Vuex for state.", ("me", "np:frontend", "Vue 2", "")),
    ("Our unit tests run on Jest.", ("me", "np:unit test", "Jest", "")),
    ("The whole frontend is SvelteKit now.", ("me", "np:frontend", "SvelteKit", "")),
    ("We moved the API from our old host onto Fly.io this weekend.", ("me", "np:api", "Fly.io", "")),
    ("Staging is at staging.example-app.com, behind basic auth.", ("me", "np:staging url", "staging.example-app.com",
                                                                 "")),
    ("Quick context: the API is hosted on Heroku.", ("me", "np:api", "Heroku", "")),  # a label before it
    ("We run CI on Travis, from a config at the repo root.", ("me", "np:ci", "Travis", "")),
    # a tool's name in lower case, which is no word of the language
    ("We switched the monorepo over to pnpm.", ("me", "np:monorepo", "pnpm", "")),
    ("The frontend is built with webpack.", ("me", "np:frontend", "webpack", "")),
    # a name said of oneself, as "My name is ..." says it
    ("I'm Sam, I work as a nurse at Mercy Hospital.", ("me", "np:name", "Sam", "")),
    ("Hi, I'm Priya Shah - I run the data team.", ("me", "np:name", "Priya Shah", "")),
    # in letters of any script
    ("Hi! I'm Tomás, I work as a sous chef at Bellwether.", ("me", "np:name", "Tomás", "")),
    ("I'm Zoë Dubois - I teach piano.", ("me", "np:name", "Zoë Dubois", "")),
]


@pytest.mark.parametrize(("text", "expected"), OPEN_EXAMPLES)
def test_a_value_or_change_outside_the_catalogue_is_read_as_an_open_slot(text, expected):
    assert expected in slots_of(text)


@pytest.mark.parametrize("text", [
    "The problem is Jenkins.",                 # no lasting slot
    "My favourite band is Wilco.",             # the catalogue's favourite, not an open slot
    "My kitchen is tiny.",                      # an adjective, not a value
    "Our landlord is Mr Patel.",                # a person: the catalogue's provider
    "The winner is Tom.",                       # "the" + no identifier noun
    "The total is $45.",
    "The meeting is set to start at 3.",        # "the ... is set to" needs a number, not a verb phrase
    "The stage is set to Broadway.",
    "The report is done.",                      # the catalogue's status
    "I like hiking.",                           # a taste among many, not a preference over another
    "Nina prefers to work from home.",          # a verb phrase
    "I don't use Slack anymore.",               # negated: nothing to read
    "Our sister is Maya.",                      # kin
    "He switched to Vim.",                      # whose? unread
    "We moved to Thursdays.",                   # a day is the catalogue's, never a replacement
    "Our stack is Django, React and Postgres.",  # a list: its first item is no value of the whole
    "The backend is a mess.",                    # no name
    "Went to Paris.",                            # no change of a thing
    "The party is at Sam's.",                    # no address
    "We moved the frontend to production.",     # a word of the language, not a tool
    "We host our podcast on Fridays.",          # a day is no part's value
    "I'm Happy, thanks.",                       # a word the tagger knows, and no given name
    "I'm Canadian, eh.",
    "I'm Frank about it.",                      # a word after it: no name said
    "I'm ÉLODIE, hi.",                          # no name written as one: a capital, then small letters
    "I'm élodie, hi.",
    "My parents are Tom and Ann.",              # a plural of people, not one thing's name
    "The tests are green.",
    "Our servers are in Frankfurt.",
])
def test_what_is_not_a_value_of_a_lasting_slot_reads_nothing_open(text):
    assert not read_open(text, frozenset({"sister", "landlord"}))


def test_a_value_a_catalogue_claim_states_is_not_read_twice():
    assert {a for _, a, _, _ in slots_of("My new work phone number is 555-0188.")} == {"phone"}


def test_value_kinds():
    assert [value_kind(v) for v in ("k9-lock", "a@b.io", "Neovim", "tea")] == ["id", "id", "name", "word"]
    # a name with a version is a name, as "SvelteKit" is: one may replace the other
    assert [value_kind(v) for v in ("Vue 2", "Python 3.11", "Hunter22", "555-0100")] == ["name", "name", "id", "id"]


@pytest.mark.parametrize(("old", "new"), [
    ("Our alarm code is 7731.", "We changed the alarm code to 5150."),
    ("My router password is bluejay.", "The new router password is redwing."),
    ("Marco prefers green tea.", "Marco prefers black coffee now."),
    ("I use Firefox as my browser.", "I switched to Vivaldi."),
    ("I use Firefox as my browser.", "I moved from Firefox to Vivaldi."),
    ("We use Jira.", "We use Linear instead of Jira now."),
    ("My gym is Planet Fitness.", "I cancelled Planet Fitness and joined Equinox."),
    ("I use VS Code for coding.", "I've moved over to Neovim for coding."),  # the tool for one purpose
    ("The backend is written in Go.", "We rewrote the backend in Rust."),
    ("Our docs site is hosted on Netlify.", "We moved the docs site to Cloudflare Pages."),
    ("We use Terraform for the infrastructure.", "We migrated the infrastructure to Pulumi."),
    ("Our status page URL is https://status.example.org.", "The status page URL changed to https://up.example.org."),
    ("The frontend is a Vue 2 app.", "The rewrite shipped - the whole frontend is SvelteKit now."),
    ("The API is hosted on Heroku, two dynos.", "We moved the API from our old host onto Fly.io this weekend."),
    ("Staging is at staging.example-app.com.", "Heads up, the staging URL changed to stg.example.dev."),
    ("We use Yarn 1 for the monorepo, with workspaces.", "We switched the monorepo over to pnpm."),
    ("Priya's username is pkdev.", "Priya's username is priya_k now."),  # an identifier's words stay words
])
def test_a_change_of_an_open_slot_is_an_update(old, new):
    assert outcome(old, new) == "update"


@pytest.mark.parametrize(("old", "new"), [
    ("Our alarm code is 7731.", "The shed alarm code is 5150."),            # another slot
    ("Marco prefers green tea.", "Dana prefers black coffee."),             # another person
    ("Marco prefers green tea.", "Marco prefers window seats."),            # another kind of thing
    ("Marco prefers tea in the evening.", "Marco likes mint tea more than chamomile."),  # a kind of tea
    ("Marco prefers tea in the evening.", "Marco prefers coffee in the morning."),       # another occasion
    ("I use Firefox at work.", "I switched to Vivaldi at home."),           # no role, another context
    ("I use Firefox as my browser at work.", "I switched to Vivaldi at home."),
    ("Our alarm code is 7731.", "Our alarm code is 7731."),                 # the same statement
    ("I use Firefox as my browser.", "I also use Vivaldi as my browser."),  # an addition
    ("I use VS Code.", "I switched to Neovim."),                            # a tool among many
    ("I use VS Code for coding.", "I switched to Neovim for writing."),     # another purpose
    ("The backend is written in Go.", "We rewrote the frontend in Svelte."),  # another part
    ("The backend is written in Go.", "The kids use Scratch."),
    ("Our docs site is hosted on Netlify.", "We moved the docs site to a new folder."),  # no name
])
def test_another_slot_subject_kind_or_context_is_never_an_update(old, new):
    assert outcome(old, new) in ("related", "unrelated", "duplicate")


def test_a_bare_replacement_changes_only_the_single_nearest_candidate_with_a_role():
    new = Statement("n", "I switched to Vivaldi.", 10, read("I switched to Vivaldi."))
    browser = Statement("b", "I use Firefox as my browser.", 1, read("I use Firefox as my browser."), 0.5)
    mail = Statement("m", "I use Outlook as my mail client.", 1, read("I use Outlook as my mail client."), 0.4)
    unrelated = Statement("u", "My sister lives in Oslo.", 1, read("My sister lives in Oslo."), 0.7)
    assert [v.outcome for v in JUDGE.judge(new, [browser, mail])] == ["related", "related"]  # which one?
    assert [v.outcome for v in JUDGE.judge(new, [browser, unrelated])] == ["related", "unrelated"]  # not nearest
    assert [v.outcome for v in JUDGE.judge(new, [browser])] == ["update"]
    login = Statement("l", "My router login is Falcon.", 1, read("My router login is Falcon."), 0.5)
    assert [v.outcome for v in JUDGE.judge(new, [login])] == ["unrelated"]  # one switches to no password


def test_a_replacement_stated_for_an_earlier_time_is_one_the_later_statement_ends():
    new = Statement("n", "I switched from Firefox to Vivaldi.", 1, read("I switched from Firefox to Vivaldi."))
    old = Statement("o", "I use Firefox as my browser.", 10, read("I use Firefox as my browser."), 0.5)
    verdict = JUDGE.judge(new, [old])[0]
    assert verdict.outcome == "update" and "earlier time" in verdict.reason


def test_a_setting_said_either_way_is_one_slot_that_a_later_one_updates():
    assert outcome("The thermostat is set to 70.", "We set the thermostat to 68.") == "update"
    assert outcome("My alarm is set to 6:30.", "I set my alarm to 7:15.") == "update"


def test_a_read_of_catalogue_attributes_only_skips_the_open_slots_and_loses_nothing():
    from worlddb.extract import _slot_reader
    from worlddb.extract.open_slots import REPLACES, is_open

    def kept(text, attributes):  # the open claims a read of `attributes` keeps, every one read
        return [c.attribute for c in read_open(text, _slot_reader._animate())
                if attributes is None or c.attribute in attributes or (REPLACES in attributes and is_open(c.attribute))]

    def read_open_of(text, attributes):  # the open claims the reader gives for a read of `attributes`
        reading = _slot_reader._read.__wrapped__(text, None, attributes)
        return [c.attribute for c in reading.claims if is_open(c.attribute)]

    catalogue_only = [frozenset({"home", "employer"}), frozenset({"when", "due", "status"}), frozenset()]
    for text, (_subject, attribute, _value, _qualifier) in OPEN_EXAMPLES:
        assert kept(text, None) and read_open_of(text, None)
        for attributes in catalogue_only:
            assert kept(text, attributes) == [] == read_open_of(text, attributes)
        # asked for the open slot itself, or for any replacement, the read still runs
        assert attribute in read_open_of(text, frozenset({attribute}))
        assert read_open_of(text, frozenset({REPLACES})) == kept(text, frozenset({REPLACES}))


@pytest.mark.parametrize(("text", "attribute", "value"), [
    ("Priya Nair has taken over as tech lead.", "np:tech lead", "Priya Nair"),
    ("Priya Nair is our new tech lead.", "np:tech lead", "Priya Nair"),
    ("Mira Patel replaced Tom Okafor as our product manager.", "np:product manager", "Mira Patel"),
    ("Our CTO is Dana Lee.", "np:cto", "Dana Lee"),
    ("The CTO is Dana Lee.", "np:cto", "Dana Lee"),
])
def test_the_holder_of_a_role_held_by_one_person_at_a_time_is_its_value(text, attribute, value):
    assert ("me", attribute, value) in {(c.subject, c.attribute, c.value) for c in read(text).claims}


@pytest.mark.parametrize("text", ["Biscuit is our new puppy.", "Sam is our new neighbour.", "The winner is Tom.",
                                  "Sam took over the cooking tonight."])
def test_a_new_pet_a_neighbour_or_a_winner_holds_no_role(text):
    assert not [c for c in read(text).claims if c.attribute.startswith("np:")]


def test_who_asks_for_the_holder_of_a_role_and_nothing_else():
    assert [k.attribute for k in asked("Who is our tech lead?")] == ["np:tech lead"]
    assert [k.attribute for k in asked("Who is the CTO?")] == ["np:cto"]
    assert not [k for k in asked("Who is our neighbour?") if k.attribute.startswith("np:")]


@pytest.mark.parametrize(("text", "new", "old"), [
    ("Switched to a Mac last month.", "Mac", None), ("I switched from a PC to a Mac.", "Mac", "PC"),
])
def test_a_switch_to_a_thing_named_after_an_article_replaces(text, new, old):
    claims = {(c.value, c.ended) for c in read(text).claims if c.attribute == "replaces"}
    assert (new, False) in claims and (old is None or (old, True) in claims)
