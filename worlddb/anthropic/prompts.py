"""What WorldDB says to a model: the system prompts of the Anthropic-backed extractor,
summarizer and tiebreaker, kept apart from the code that sends them.

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
