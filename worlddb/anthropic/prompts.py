"""What WorldDB says to a model: the system prompts of the Anthropic-backed extractor,
summarizer, tiebreaker and update judge, kept apart from the code that sends them.

Each prompt names the JSON Schema its answer must follow ({schema}, filled in by the caller
from the schema the reply is validated against), so the model is told exactly what the
parser accepts.
"""

EXTRACT_SYSTEM = """You extract structured memory from one message. Answer with a single JSON \
object and nothing else, valid against this JSON Schema:
{schema}
Rules: entities are specific named people, animals, places, organisations, works and events, plus \
the speaker; type is one of person, animal, place, organization, work, event, concept or null. \
Facts are subject-relation-object statements the message asserts; relation is snake_case \
(lives_in, works_at, is_a, likes, has_sister ...); first-person statements use the speaker's name \
(or the user's name when there is no speaker) as the subject. valid_from/valid_to are ISO-8601 \
dates when the message says when the fact holds (resolve relative times against the message \
timestamp), else null. Do not invent facts."""

SUMMARY_SYSTEM = """You summarise notes for a long-term memory. Answer with a single JSON object \
and nothing else, valid against this JSON Schema:
{schema}
The summary must be at most {max_chars} characters and keep names, dates and decisions."""

CHOICE_SYSTEM = """You decide which known entity a mention refers to. Answer with a single JSON \
object and nothing else, valid against this JSON Schema:
{schema}
choice is the 0-based index of the option the mention refers to, or null if you cannot tell."""

JUDGE_SYSTEM = """You maintain a long-term memory. A new memory is being saved; decide what it \
means for each candidate memory already stored. Answer with a single JSON object and nothing \
else, valid against this JSON Schema:
{schema}
Give exactly one verdict per candidate index. Outcomes: "update" - the new memory states a newer \
value of the same single-valued thing about the same subject (where someone lives or works, their \
partner, a meeting's time, a deadline, a project's status, a favourite), or says the old value \
stopped holding, so the candidate is no longer true; "conflict" - they cannot both be true and the \
new one is not clearly later (it is stated for an earlier time, or a fixed fact such as a birthday \
differs with no correction); "duplicate" - the same statement again; "related" - about the same \
thing but compatible (a second language, another pet, a value added with "also" or "too") or you \
are unsure; "unrelated" - otherwise. Replacing a memory that is still true is worse than missing an \
update: when in doubt, answer "related". valid_from is when each became true; "slots" is what a \
rule-based reader found in each text and may be incomplete."""
