"""What the calling model reads: server instructions, tool and argument descriptions.

Kept apart from the tool code so the wording can be read (and reviewed) in one place.
"""

INSTRUCTIONS = """\
WorldDB is your long-term memory across sessions. It keeps what is true now, what used to be
true and when, who said it, and which names refer to the same person or thing.

- Save durable facts, preferences, decisions and events with memory_write, one self-contained
  statement per call ("Alice moved to Denver in March 2024", not "she moved").
- Before answering from memory, call memory_recall with a natural-language query. Each hit says
  what replaced it (superseded_by), what it replaced (supersedes) and what it conflicts with; a
  memory a newer one changed only in part stays current and names that one under
  annotations.revised_by: take the changed part from the newer memory. These lists name memories
  in the order they begin, earliest first: the first in superseded_by is what came next.
- Before saving a change ("I moved", "I switched jobs"), recall what is stored about it. If you
  know which memory is out of date, memory_amend it (its content is never edited in place; the
  new memory supersedes it and the old one stays in the history: include_retired / as_of).
- memory_write also checks the new memory against current ones: its result lists what it
  superseded, what it conflicts with, whether it repeated a memory (duplicate_of, nothing
  written) and related memories it left undecided. If one of those is out of date, amend or
  retire it; if a supersession was wrong, amend the new memory.
- When something no longer applies, memory_retire it (valid_to: when it stopped being true); when
  it was simply wrong, memory_retire it with wrong=true, and what it replaced is current again.
- Scopes: user_id, agent_id, app_id, run_id say whose memory it is. Omit them all to use the
  server's default scope, if it has one. A memory written with several belongs to each.
  Recall never returns memories outside the scopes it names.
"""

USER_ID = "The user this memory belongs to (scope user:<id>). Omit all scope ids to use the default scope."
AGENT_ID = "The agent this memory belongs to (scope agent:<id>)."
APP_ID = "The application this memory belongs to (scope app:<id>)."
RUN_ID = "One run or conversation this memory belongs to (scope run:<id>)."
MEMORY_ID = "A memory id: the full 64-character hex id, or a unique prefix of at least 8 characters."
WHEN = ("When the memory became true, ISO-8601 (e.g. 2024-03-01 or 2024-03-01T09:00:00Z). Default: the past time "
        "the text says all it states became true (\"I moved to Berlin last month\": the 1st of last month; \"In "
        "2019 I lived in Lisbon\": 2019), else now. A time still to come makes it true from then (a plan: \"We're "
        "moving to Denver on June 1\" with valid_from June 1 ends the current home then): recall shows it from then "
        "on, or with as_of.")
TEXT = ("The memory: one self-contained statement, in plain language (up to 32,000 characters). Give either "
        "text or messages, not both.")
MESSAGES = ("Instead of text: the turns of a conversation, in order, each {role, content} and optionally time, "
            "caption, ref (at most 500 per call). They are kept as one session: who said what, in order, linked "
            "to the people and things they name. Omit text, metadata, entities and facts when you give messages.")
SESSION = ("With messages: your id for the conversation. A later call with the same session id (and the same "
           "scopes) continues it, as does the `session` id a write returned. Send only the new messages, or the "
           "whole conversation (or its last part) each time: opening messages that repeat the session's last "
           "turns (same role, same content but for spacing, same ref or none, and the same time if given) are not "
           "written again, nor is a message whose ref one of those turns has. To say the same words again as a "
           "new message, give it a ref or a later time. Without a session id, each call is a conversation of its "
           "own.")
ROLE = ("Who said it: user (the person whose memory this is), assistant (you), or another speaker's name. The "
        "user's own turns take user, not the user's name: a name is someone else's \"I\".")
CONTENT = "What was said (up to 32,000 characters)."
MESSAGE_TIME = ("When it was said, ISO-8601. Default: the previous message's time; for the first, valid_from, "
                "else now. Times may not run backwards: not before the previous message, valid_from, or the last "
                "turn of the session continued.")
CAPTION = "A description of an image shared with the message (optional)."
REF = "Your id for this message (optional); returned with the id of the turn stored for it."
METADATA = ("Optional JSON object stored with the memory (source, tags, ...). A `speaker` says who said the "
            "text: \"user\" (the default) or \"assistant\", or another person's name: \"I\" in it is then that "
            "person, and it is found by what they said. Write the user's own words with speaker user, not their name. "
            "A blank speaker or role is refused: leave it out instead.")
ENTITIES = ("Optional: the people, places and things the text mentions, if you know them. When given, they "
            "replace automatic extraction. Names are matched to known entities; near matches are proposed, "
            "never merged silently.")
FACTS = ("Optional: subject-relation-object facts the text states, e.g. {subject: 'Alice', relation: "
         "'lives_in', object: 'Denver'}. When given, they replace automatic extraction.")
QUERY = "What to look for, in natural language (a question or keywords)."
AS_OF = ("Valid time: answer as things were true at this moment (ISO-8601), past or future. Default: what is "
         "true now (a memory whose valid_from is later is left out).")
KNOWN_AT = ("Transaction time: answer as the memory knew things at this moment (ISO-8601). Default: now; "
            "a moment still to come is now.")
INCLUDE_RETIRED = "Also return superseded and retired memories, with their closed validity intervals."
RECALL_INCLUDE_RETIRED = (INCLUDE_RETIRED + " Set it for a question about what used to be true (\"Where did I live "
                          "before?\"): what was replaced then comes first.")
CONFIRM = "Must equal the scope key being purged, e.g. 'user:alice'. A safeguard against purging by mistake."
ERASE = ("Also physically remove the text, index entries and embeddings of everything that belongs to this "
         "scope alone (ids stay as tombstones so verification still passes). Cannot be undone.")

WRITE = """Save a new memory. Use for durable information worth remembering across sessions: facts about
the user or the world, preferences, decisions, events. Entities named in it are linked to known ones
(exact matches) or created, with near matches proposed for review rather than merged. The new memory
is checked against current ones about the same thing (same person or thing, same attribute: where
someone lives or works, a meeting's time, a favourite...): a newer value supersedes the old memory
(`superseded`; if the old memory also says other things this one leaves alone, it stays current and
is listed in `revised` instead, as is the memory a change is most likely about - the nearest, or one
naming the same thing - when it is said in words the rules cannot place: check it), a disagreement
that time does not settle is recorded on both (`conflicts`), the same statement again writes nothing
(`duplicate_of` names the existing memory) unless a newer memory changed it since (then it is said
again: written, and that change is listed in `revised`), and memories that may be about the same thing but were
left undecided are listed in `related`. Valid time orders a change, whichever is written first: a
memory stated for an earlier time than a current one that changes it is history, ended where that one
begins (`superseded_by`; `revised_by` if it also says what that one leaves alone), and history stated for a
time between two stored memories takes its place between them. Returns the memory id,
the resolved entities, extracted facts and those lists. If you know which memory a change replaces,
recall it first and use memory_amend; if a related memory is out of date, amend or retire it.

Give either `text` (one memory) or `messages` (a conversation: a list of {role, content} turns, plus an
optional `session` id to continue the same conversation in a later call). Messages are kept as one
session of ordered turns, each linked to its speaker and the entities it names; the result lists the
session id and one {id, ref} per message. A turn that changes what an earlier turn said ("I moved to
Denver" after "I live in Austin") marks it: the earlier turn stays (it was said), reads name the later
one under annotations.revised_by, and the result lists it in `revised`; what an assistant turn restated
("Got it - you live in Austin") is marked with it. Turns and memories mark each other this way: a turn
never closes a memory, and a memory never closes a turn. Valid time decides which marks which: turns
dated before a stored turn or memory that changes them are marked by it (`revised_by` in the result)."""

RECALL = """Search memory. Hybrid retrieval (keywords, meaning, and the entities the query names), ranked
and scoped; a question about one attribute ("Where do I work?") ranks the memories that state it
first, newest first (those hits carry the lane "slot"), and a memory that a newer one superseded or
revised comes just after that newer one (lane "successor"; a superseded one that matches is hidden,
and the memory that replaced it takes its place); a query naming a code ("OPS-2", "v1.4",
"db-staging-02") ranks the memories naming it first (lane "identifier"); a query naming someone by
full name ("Ana Kovac") ranks their memories before those of a namesake a pending merge proposal
links to them ("Ana", lane "named"). Returns the best matches in rank order with
their text, metadata, fused score, validity interval, the lanes that found each, linked entities, what
each supersedes or is superseded by, and any recorded contradictions (`conflicts`: of conflicting
memories the newer one ranks first). By default only
what is currently true is returned; use as_of for a past moment, known_at for what was known then,
include_retired for the full history. A hit is current while `valid_to` is null or still to come (a
memory written with a later valid_from replaces it then, and as_of that time finds the new one): `retired`
marks only a memory retired with memory_retire, and a superseded one names its successor in
`superseded_by` (of several, earliest first: the first is the one that came next)."""

LIST = ("Page through the memories and conversation turns of a scope, newest first (not the summaries the "
        "background consolidation derives from them). Pass next_cursor back to get the next page.")

READ = """Read one memory in full: text, metadata, scopes, validity, when it was stored, provenance,
linked entities and facts, what it supersedes or is superseded by, contradictions, and a hash check
that its stored bytes still match its id. Given an entity id (from a memory's entities), `entity`
holds that entity in full: its name, aliases and type, `same_as` (entities confirmed to be the same),
`proposals` (pending "may be the same" proposals: id, the other name, tier, score; unconfirmed until a
person accepts or rejects them in the memory inspector or with `worlddb identity`), its current `facts`
(each once, with `sources`: the memories that state it, newest first), related entities, and the
newest memories that mention it; pass its next_cursor back as `cursor` for more. With include_retired,
an entity's read also answers what used to be true of it: `past_facts` lists the facts that held once
and no longer do (ended by a change, or retired; not those retired as never true), each with the
valid_from and valid_to it held between and its `sources`, the most recently ended first, and its
mentions take in memories no longer current. A memory's read already shows its validity and all its
facts, current or not: include_retired changes nothing there."""
READ_CURSOR = "For an entity id only: next_cursor from the previous read, for the next page of its mentions."
READ_INCLUDE_RETIRED = (INCLUDE_RETIRED + " For an entity id: also its past facts (past_facts) and the mentions "
                        "no longer current; for a memory id it changes nothing.")

AMEND = """Correct or update a memory - use it whenever you know a stored memory is out of date (recall
first to find its id). The content of a memory is never edited in place: this writes a new memory
with the given text, in the same scopes, and marks it as superseding the old one, whose validity
ends where the new one begins (valid_from: when the change happened; default now). The old memory
stays readable with include_retired or as_of. A memory that a planned change (one written with a later
valid_from) ends is current until then and can be amended: the plan then ends the amended memory
instead. Takes a memory's id, or a conversation turn's (the turn is then superseded too: to record a
change and keep what was said current and marked, write the change with memory_write instead); an
entity, fact or summary id is refused. Returns the new memory's id; in conflicts the current memories
the new text contradicts; and in revised the other current memories and conversation turns its change reaches (what
memory_write would supersede or revise, or mark): an amend closes none of them, and reads mark them
revised_by. What the old memory superseded or changed is judged again against the new text: it stays
ended (from the new memory's valid_from) only where the new text still changes it, and is current again
otherwise. A text another current memory already says is refused: retire the old memory instead."""

RETIRE = """Mark one memory as no longer true when nothing replaces it: it stopped applying, or it was
never true (wrong). Its validity ends at valid_to (when it stopped being true; default now), and what it
replaced stays replaced; it is hidden from recall unless include_retired is set. With wrong=true (a
mistake, a joke, misheard) it held at no time, so no as_of finds it either, and what it superseded or
changed is current again, unless another current memory also ended it (one that superseded the retired
memory takes its place); so is what a planned change (a memory whose valid_from is still to come) would
have replaced, wrong or not. A memory retired before may be retired again with wrong=true once it turns out
it never held: it is then retired as never true from that call on (reads with known_at before it still show
the first retirement), and the reason given replaces the first one. Any other retire of a retired memory
changes nothing (already_retired is true). Nothing is deleted. Also takes the id of a fact extracted from a
memory, to close just that fact; an entity or summary id is refused."""

AMEND_VALID_FROM = ("When the corrected memory became true, ISO-8601 (not before the old one began). "
                    "Default: now.")
RETIRE_VALID_TO = "When it stopped being true, ISO-8601, not later than now. Default: now. Not with wrong."
RETIRE_WRONG = ("true if the memory was never true (a mistake, a joke, misheard): what it replaced or changed is "
                "current again; also for a memory already retired without it. Default false: it held until "
                "valid_to.")

RETIRE_ALL = """Retire every current memory in the named scopes (name them explicitly: the default scope
is never retired whole implicitly, and no tool brings a retired memory back). Nothing is deleted; the
history remains readable with include_retired. A memory written to several scopes is one memory: it is
retired in all of them (if one of those is a scope you may not write, nothing is retired). A scope that
does not exist is an error, and nothing is retired. Returns how many current memories and conversation
turns were retired (the facts drawn from them and the summaries derived from them go with them,
uncounted)."""

PURGE = """Retire a whole scope and everything in it. Name exactly one scope explicitly (the default scope
is never purged implicitly) and set confirm to its key, e.g. 'user:alice'. With erase=true, also
physically remove the content that belongs to this scope alone - use for deletion requests. Returns
how many of its current memories and conversation turns were retired, how many items this call erased (0 when an earlier
purge already erased them all), and how many items it shares with other scopes (they stay there)."""

LIST_SCOPES = ("List the scopes that hold memories, with how many memories and conversation turns each has "
               "that are current, upcoming (written with a valid_from still to come) and retired.")
