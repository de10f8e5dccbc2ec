"""The slot reader's lexicons: word lists and the regular-expression pieces built from them.

Contract: plain data, built once at import: kinship words (``_KIN``, and ``_KIN_RE`` to match
any of them), first-person words, determiners, occupations and title words, diets, drinks
and foods, vehicle and phone makes, pets, event and deliverable nouns, status words, school
and organisation words, programming languages, and the patterns of months, weekdays, times,
dates and frequencies. The rules (worlddb.extract._slot_rules), the reading of subjects and
values (worlddb.extract._slot_values) and of claims (worlddb.extract._slot_reader) read them;
nothing here reads text. A list says what words mean, never which sentences to read.
"""

from __future__ import annotations

import re

_KIN = {
    "dad": "father", "father": "father", "papa": "father", "pop": "father", "mom": "mother", "mum": "mother",
    "mother": "mother", "mama": "mother", "sister": "sister", "brother": "brother", "son": "son",
    "daughter": "daughter", "wife": "wife", "husband": "husband", "partner": "partner",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "grandma": "grandmother", "grandmother": "grandmother",
    "grandpa": "grandfather", "grandfather": "grandfather", "aunt": "aunt", "uncle": "uncle", "cousin": "cousin",
    "niece": "niece", "nephew": "nephew", "friend": "friend", "roommate": "roommate", "neighbor": "neighbour",
    "neighbour": "neighbour", "boss": "boss", "coworker": "coworker", "colleague": "coworker",
    "fiance": "fiance", "fiancé": "fiance", "fiancee": "fiance", "fiancée": "fiance", "kid": "child",
    "stepdad": "stepfather", "stepmom": "stepmother", "in-law": "in-law",
}
_KIN_RE = "|".join(sorted(_KIN, key=len, reverse=True))
_PARTNER_WORDS = r"(?:boyfriend|girlfriend|husband|wife|partner|fianc[ée]e?|spouse|significant other)"
_FIRST = {"i", "we", "me", "my", "our", "us", "mine", "ours", "myself", "i'm", "i've", "i'd", "i'll", "we're",
          "we've", "we'd", "we'll", "i’m", "i’ve", "i’d", "i’ll", "we’re", "we’ve"}
_DETERMINERS = {"a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these",
                "those", "some", "new", "old", "current", "usual", "main"}
_OCCUPATIONS = set("""
accountant actor actress administrator analyst architect artist assistant attorney auditor baker banker barber
barista bartender biologist bookkeeper broker builder butcher carpenter cashier ceo cfo cto chef chemist
cleaner clerk coach consultant cook counselor counsellor courier curator dancer designer dentist
developer dietitian director doctor driver economist editor electrician engineer entrepreneur
executive farmer firefighter freelancer gardener geologist hairdresser historian hygienist illustrator
instructor intern investigator janitor journalist judge landscaper lawyer lecturer librarian lifeguard
linguist machinist manager marketer mechanic midwife musician nanny navigator nurse officer optometrist
painter paralegal paramedic pharmacist photographer physician physicist physiotherapist pilot plumber
poet police policeman policewoman postman producer professor programmer psychiatrist psychologist
realtor receptionist recruiter reporter researcher salesman saleswoman salesperson scientist secretary
sergeant server singer sociologist soldier specialist statistician student supervisor surgeon
surveyor tailor teacher technician therapist translator tutor veterinarian vet waiter waitress welder
writer carrier lead founder cofounder co-founder owner principal president vp partner associate
apprentice dispatcher inspector pastor priest rabbi mail tester coordinator planner strategist advisor adviser
representative operator copywriter practitioner caregiver aide attendant
""".split())
_TITLE_WORDS = {"senior", "junior", "staff", "principal", "lead", "head", "chief", "associate", "assistant",
                "deputy", "executive", "managing", "regional", "general", "software", "data", "product",
                "project", "program", "registered", "certified", "full-time", "part-time"}
_DIETS = (r"vegan|vegetarian|pescatarian|pescetarian|keto|paleo|gluten[- ]free|dairy[- ]free|lactose[- ]free"
          r"|kosher|halal|plant[- ]based|carnivore|flexitarian|raw food|low[- ]carb|sugar[- ]free")
_ALCOHOL = (r"alcohol|wine|beer|booze|liquor|cocktails?|whiske?y|vodka|gin|rum|tequila|sake|champagne|spirits"
            r"|drinks?|a drink|glass of \w+|pint")
_CAR_MAKES = set("""
honda toyota tesla ford bmw subaru kia hyundai volkswagen vw audi mercedes mercedes-benz nissan mazda chevy
chevrolet jeep volvo prius rivian lexus porsche fiat mini dodge ram gmc polestar cadillac buick chrysler
lincoln acura infiniti genesis mitsubishi jaguar land range lucid saab peugeot renault skoda seat citroen
""".split())
#: car models said without their make ("I drive a Civic"), none of them a common word, a place or
#: a given name (no Focus, Pilot, Tacoma, Sienna)
_CAR_MODELS = set("""
civic accord cr-v crv hr-v camry corolla rav4 highlander tundra yaris outback forester crosstrek impreza
wrx mustang f-150 f150 bronco fiesta wrangler silverado camaro corvette altima sentra elantra sonata ioniq sorento
sportage telluride jetta passat tiguan miata cx-5 cx-30 cx-50 mx-5 4runner
""".split())
_PHONE_MAKES = set("iphone pixel galaxy samsung oneplus motorola moto nokia xiaomi huawei blackberry android fairphone"
                   " xperia".split())
_PETS = (r"dog|cat|puppy|pup|kitten|kitty|hamster|rabbit|bunny|goldfish|fish|parrot|bird|budgie|turtle|tortoise"
         r"|gecko|lizard|snake|guinea pig|ferret|horse|pony|retriever|terrier|labrador|lab|poodle|beagle"
         r"|spaniel|collie|shepherd|bulldog|greyhound|husky|pug|dachshund|corgi|chihuahua|schnauzer|whippet|mutt"
         r"|parakeet|cockatiel")
#: classes and practices kept on a weekly schedule, named without "class" ("Yoga moved to Tuesdays")
_PASTIMES = (r"yoga|pilates|spin|zumba|barre|crossfit|karate|judo|taekwondo|jiu-?jitsu|kickboxing|boxing|choir"
             r"|orchestra|ballet|piano|guitar|violin|cello|tutoring|therapy|physio|physiotherapy|bootcamp|swim team")
_EVENTS = (_PASTIMES + r"|stand-?up|meeting|sync|call|check-?in|one-on-one|1:1|class|lesson|lessons|practice|rehearsal"
           r"|appointment|session|training|dinner|lunch|breakfast|brunch|party|trip|flight|vacation|holiday"
           r"|wedding|recital|concert|game|match|interview|surgery|visit|retreat|offsite|review|demo|launch"
           r"|release|presentation|ceremony|reunion|shower|tour|service|mass|club|workshop|seminar"
           r"|webinar|standup|huddle|retro|retrospective|planning|all-hands|conference|camp|deploys?|deployments?"
           # (a run only after a word that makes it one: "runs" alone is as often a verb, "the market runs
           # Saturdays")
           r"|marathon|triathlon|race|(?:long|group|club|park|morning|evening|tempo|easy|weekend|test)\s+runs?"
           r"|rides?|workouts?")
_DELIVERABLES = (r"proposal|report|paper|essay|thesis|dissertation|application|assignment|homework|project"
                 r"|draft|manuscript|submission|deliverable|taxes|tax return|invoice|grant|abstract|review"
                 r"|presentation|slides|deck|estimate|budget|filing|form|renewal|payment|bill|rent|deposit")
_STATUS = (r"blocked|on hold|paused|stalled|delayed|in progress|underway|under way|done|finished|complete|completed"
           r"|shipped|launched|released|cancel+ed|called off|scrapped|approved|rejected|behind schedule|on track"
           r"|wrapped up|back on track|started|kicked off|halfway done|almost done|nearly done|in review"
           r"|in testing|deployed|rolled out|went live|now live|waiting (?:on|for) [\w ]{1,30}|pending(?: [\w ]{1,20})?"
           r"|awaiting [\w ]{1,20}|under review|at (?:about |around )?\d+ ?%(?: complete| done)?"
           r"|\d+ ?% (?:complete|done)")
_SCHOOL_WORDS = {"school", "academy", "elementary", "preschool", "kindergarten", "montessori", "college",
                 "university", "high", "middle", "prep", "daycare", "nursery", "institute", "conservatory",
                 # the names British and Irish schools go by ("St Aidan's Primary", "Northgate Secondary")
                 "primary", "secondary", "grammar", "infants", "comprehensive"}
_ORG_WORDS = {"inc", "corp", "llc", "ltd", "company", "co", "hospital", "clinic", "bank", "university", "group",
              "labs", "studio", "agency", "firm", "partners", "capital", "health", "systems", "technologies"}
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december"
           "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_WEEKDAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays?|weekends?"
_NUM_WORDS = r"\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|a couple of|a few"
_PER = (r"(?:once|twice|(?:" + _NUM_WORDS + r")\s+(?:times|days|sessions|nights|mornings|evenings))"
        r"\s+(?:a|per|each|every)\s+(?:week|month|day)")
#: a day of each month by its place ("the first Friday of the month", "the last Sunday of every month")
_MONTHLY = (r"(?:the\s+)?(?:first|second|third|fourth|last)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day"
            r"(?:\s+of\s+(?:the|each|every)\s+month)?")
_TIME = (rf"(?:{_MONTHLY}|\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{{1,2}}:\d{{2}}|noon|midnight"
         rf"|(?:{_WEEKDAYS})(?:\s+(?:morning|afternoon|evening|night)s?)?(?:\s+at\s+\d{{1,2}}(?::\d{{2}})?"
         rf"(?:\s*(?:am|pm))?)?)")
_DATE = (rf"(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
         rf"(?:{_MONTHS})(?:,?\s+\d{{4}})?|the\s+\d{{1,2}}(?:st|nd|rd|th)(?:\s+of\s+(?:{_MONTHS})(?:,?\s+\d{{4}})?)?"
         rf"|\d{{4}}-\d{{2}}-\d{{2}}|(?:{_MONTHS})\s+\d{{4}}"
         rf"|next\s+(?:week|month|year|{_WEEKDAYS})|(?:{_WEEKDAYS}))")

#: the last word of a company's name by law or by custom ("Umbrella Corp", "Initech Inc.", "Acme Labs"):
#: one "moves to" such a name to work there, not to live there
CORPORATE = frozenset({"inc", "corp", "corporation", "llc", "ltd", "gmbh", "plc", "labs", "technologies", "holdings",
                       "industries", "enterprises"})


def corporate(name: str) -> bool:
    """Whether `name` (as written) ends in a company's suffix (CORPORATE)."""
    words = name.replace(",", " ").split()
    return len(words) > 1 and words[-1].strip(".").lower() in CORPORATE


#: a time still to come, said with a clause: "next month", "this coming Friday", "in two weeks",
#: "tomorrow", "soon", "later this year"
FUTURE_TIME = re.compile(
    r"\b(?:next|this coming|the coming)\s+(?:week|weekend|month|year|spring|summer|fall|autumn|winter|semester|term"
    r"|quarter|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
    r"|\bin\s+(?:a|an|one|two|three|four|five|six|a few|a couple of|\d+)\s+(?:days?|weeks?|months?|years?)\b"
    r"|\b(?:tomorrow|soon|later this (?:week|month|year))\b", re.I)
#: a season or a month named without a year ("in the spring", "this summer", "in March", "at the
#: end of the month"): a time still to come only where it follows a verb of an arranged future
#: ("we're moving to Montreal in the spring"), since it may as well date something already done
#: ("ended things with him in June and is seeing Felipe now"). A month is read only capitalised. So is
#: a day ("on Monday", "on the 15th", "on January 5th": "I start at Stripe on Monday").
NAMED_TIME = re.compile(
    r"\b(?:in the|this)\s+(?:spring|summer|fall|autumn|winter|new year)\b"
    r"|\b(?:at|by) the end of (?:the|this) (?:week|month|year|summer|semester|term)\b"
    r"|\bin\s+(?:early\s+|late\s+|mid-?)?(?-i:January|February|March|April|May|June|July|August|September|October"
    r"|November|December)\b(?!,?\s+\d)"
    r"|\bon\s+(?:(?-i:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b|the\s+\d{1,2}(?:st|nd|rd|th)\b"
    r"|(?-i:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}"
    r"(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?-i:January|February|March|April|May|June|July"
    r"|August|September|October|November|December)\b)", re.I)

#: a negation right before a verb (matched at the end of the text before it): "never left", "didn't
#: switch", "no longer work", "haven't really moved"; or a subject that is no one and nothing
#: ("nothing changed there", "nobody's moved", "nothing has really changed")
NEGATED_BEFORE = re.compile(r"(?:\b(?:no longer|not|never)|n['’]t"
                            r"|\b(?:nothing|nobody|no one|none of (?:it|that|this))"
                            r"(?:['’]s|\s+(?:has|had|have|is|was))?)\s+(?:\w+ly\s+)?$", re.I)

#: a start still to come, said after what starts ("accepted an offer from Quillon, starting in
#: January", "... and start next month"): what one starts is not held yet
STARTS_LATER = re.compile(
    r"\b(?:start|starts|starting|begin|begins|beginning)\b(?:\s+(?:there|work|the\s+(?:new\s+)?job|my\s+new\s+job))?"
    r"\s+(?:" + FUTURE_TIME.pattern + r"|" + NAMED_TIME.pattern + r")", re.I)

#: what a food is a kind of, so "I don't eat meat" and "I eat chicken again" name one thing
_FOOD_KIND = {**dict.fromkeys(("chicken", "beef", "pork", "lamb", "turkey", "bacon", "steak", "ham", "veal",
                               "burgers", "sausage"), "meat"),
              **dict.fromkeys(("salmon", "tuna", "shrimp", "prawns", "shellfish", "sushi", "cod", "seafood"), "fish"),
              **dict.fromkeys(("milk", "cheese", "yogurt", "yoghurt", "butter", "cream", "ice cream"), "dairy"),
              "eggs": "eggs", "egg": "eggs"}
_LANGUAGES = set("""
python go golang rust java javascript typescript ruby c c++ c# kotlin swift elixir haskell scala php perl julia
zig clojure erlang ocaml f# dart lua r matlab fortran cobol nim crystal
""".split())
_DRINKS = re.compile(r"\b(?:latte|cortado|espresso|cappuccino|americano|flat white|macchiato|mocha|cold brew|drip|"
                     r"coffee|tea|chai|matcha|smoothie|frappuccino|decaf|cafe au lait|au lait|filter)\b", re.I)
