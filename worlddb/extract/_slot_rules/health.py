"""Health: the rules of diet, drink, smoking, allergies, medications and their doses.

Contract: ``HEALTH`` holds, in table order, the rules of what one eats and drinks and whether one
smokes, of allergies, of the medicines and medical devices one takes or uses (a drug known by its
name's ending, a brand by being no word of the language) and of a medicine's dose, whose qualifier
is the medicine.
"""

from __future__ import annotations

import re

from worlddb.extract import lexicon
from worlddb.extract._slot_rules._base import (
    _S,
    _VAL,
    _Rule,
    _rx,
)
from worlddb.extract._slot_words import (
    _ALCOHOL,
    _DIETS,
    _KIN_RE,
    _MONTHS,
    _PETS,
    _WEEKDAYS,
)


def _brand(value: str) -> bool:
    """A medicine's brand name: no word of the language ("Symbicort", "Zyrtec"; not "Spanish", "French")."""
    return bool(value) and lexicon.tag(value) in (None, "NNP") and not lexicon.is_common(value.lower())


#: how much of a diet one keeps ("a strict vegetarian", "mostly vegan", "a lifelong vegetarian")
_DIET_DEGREE = r"(?:(?:strict|strictly|full|fully|mostly|completely|mainly|lifelong|committed|proud|total|pretty much)\s+)*"
#: a medicine's name by the ending most generic drug names share (lisinopril, metoprolol,
#: atorvastatin, amlodipine, omeprazole, sertraline ...), or one of the few common ones without it;
#: never a month or a day, whose name may end so ("My marathon is on April 20": the marathon's time)
_DRUG = (r"(?P<v>\b(?!(?:" + _MONTHS + r"|" + _WEEKDAYS + r"|cholesterol)\b)(?:[a-z]+(?:terol|pril|olol|sartan|statin|dipine|formin|prazole|oxetine|traline|afil|pram|azepam|"
         r"zolam|codone|profen|thiazide|semide|cillin|mycin|cycline|floxacin|conazole|tidine|dronate|lukast|xaban|"
         r"farin|gliptin|glutide|triptan|setron|tadine|nisone|olone|thyroxine|pramine|tropin)|insulin|aspirin|"
         r"metformin|acetaminophen|paracetamol|warfarin|lithium|adderall|ozempic|wegovy|zoloft|prozac|lexapro|"
         r"xanax|tylenol|advil"
         # supplements, taken as a medicine is ("I take vitamin D 2000 IU", "I stopped taking magnesium")
         r"|vitamin\s+(?:[a-e]\d{0,2}|k2?)|fish oil|melatonin|magnesium|zinc|iron supplements?|calcium|omega-3s?|biotin"
         r"|folic acid|probiotics?"
         # a kind of medicine, named for what it treats ("She is on antibiotics", "I'm off antidepressants")
         r"|antibiotics|antidepressants|antihistamines|antivirals|steroids|blood\s+thinners|beta[- ]blockers|statins)\b)")
#: a device one takes or uses as a medicine, for a condition ("an albuterol inhaler", "my CPAP machine"), up to
#: two words before its noun that say which ("rescue inhaler"); never a clause's other nouns ("the bus", "VS Code")
_MEDICAL_DEVICE = (r"(?:(?:new|old)\s+)?(?P<v>(?:(?!(?:a|an|the|my|his|her|their|our|new|old|to|for|and|or|at|on|in)\b)[\w-]+\s+){0,2}?"
                   r"(?:inhalers?|epi-?pens?|nebuli[sz]ers?|c-?pap(?:\s+machine)?|bi-?pap(?:\s+machine)?|insulin\s+pump"
                   r"|(?:continuous\s+)?glucose\s+monitor|nasal\s+sprays?|eye\s+drops|nicotine\s+(?:patch(?:es)?|gum"
                   r"|lozenges)|hearing\s+aids?)\b)"
                   # (not one used for someone else: "a nebulizer for my son's asthma")
                   r"(?!\s+for\s+(?:my|our|his|her|their)\s+(?:" + _KIN_RE + r"|" + _PETS + r")\b)")
#: what one takes a medicine for: a condition, by its common name ("for my asthma", "for allergies")
_CONDITIONS = (r"asthma|allerg(?:y|ies)|hay\s+fever|migraines?|headaches|diabetes|blood\s+pressure|hypertension"
               r"|cholesterol|anxiety|depression|adhd|insomnia|sleep\s+apnea|acid\s+reflux|reflux|heartburn|arthritis"
               r"|eczema|psoriasis|acne|thyroid|epilepsy|seizures|copd|(?:back\s+|joint\s+|chronic\s+)?pain|nausea")
#: a medicine named as the qualifier of its dose ("lisinopril 10mg": q)
_DRUG_NAMED = _DRUG.replace("(?P<v>", "(?P<q>", 1)
#: how much of it: the value of a dose ("20mg", "2000 IU")
_DOSE_VALUE = r"(?P<v>\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|ml|units?|iu))\b"
#: the verbs by which one takes a medicine
_TAKING = (r"(?:take|takes|taking|started taking|am on|'m on|’m on|is on|are on|been on|started on|switched to|now on|"
           r"started|began|begun)\s+(?:now\s+)?")
#: a dose before a medicine's name ("20 mg of lisinopril")
_DOSE = r"(?:\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|g|ml|units?|iu)\s+(?:of\s+)?)?"


HEALTH: tuple[_Rule, ...] = (
    # ---- diet, drink, smoking
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|went|going|gone|became|become|stay|stayed)\s+(?:now\s+)?"
                      r"(?:an?\s+)?" + _DIET_DEGREE + r"(?P<v>" + _DIETS + r")\b"),
          accept=lambda v: True),
    # "I'm not vegan anymore", "my dad isn't vegetarian", "she's no longer vegan", "I'm not vegetarian or pescatarian"
    _Rule("diet", _rx(_S + r"(?:(?:am|['’]m|is|['’]s|are|['’]re)\s+(?:not|no longer)|isn['’]t|aren['’]t)\s+(?:an?\s+)?"
                      + _DIET_DEGREE + r"(?P<v>" + _DIETS + r")\b"), positive=False, accept=lambda v: True,
          more=_rx(r"(?:\s*,\s*(?:(?:or|nor)\s+)?|\s+(?:or|nor)\s+)(?:(?:an?|even)\s+)?" + _DIET_DEGREE
                   + r"(?P<v>" + _DIETS + r")\b")),
    # "I'm on a keto diet", "we started the paleo diet"; "I stopped being vegan", "I went off keto"
    _Rule("diet", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|went|been|started|start|starting|began|tried)\s+(?:on\s+)?"
                      r"(?:a|an|the)\s+(?:strict\s+)?(?P<v>" + _DIETS + r")\s+diet\b"), accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:stopped|quit|gave up|went off|came off|dropped)\s+(?:doing\s+|being\s+|eating\s+)?"
                      r"(?:the\s+|my\s+|a\s+)?(?P<v>" + _DIETS + r")\b"), positive=False, ended=True,
          accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:don't|do not|doesn't|does not|never|no longer|stopped|quit)\s+(?:eat|eating|eats)\s+"
                      r"(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|gluten|sugar|animal products|seafood|lamb|turkey|"
                      r"bacon|steak|cheese|milk|salmon|shrimp|shellfish)"), positive=False, accept=lambda v: True),
    # "I eat meat again", "we're eating fish now": back to a food, said as a change
    _Rule("diet", _rx(_S + r"(?:eat|eats|ate)\s+(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|seafood|animal products)\s+"
                      r"(?:again|now|these days)\b"), accept=lambda v: True),
    _Rule("diet", _rx(_S + r"(?:started|start|starting|began|am|'m|’m|now|back to)\s+(?:eating|to eat)\s+"
                      r"(?P<v>meat|fish|dairy|eggs|pork|beef|chicken|gluten|sugar|animal products|seafood|lamb|turkey|"
                      r"bacon|steak|cheese|milk|salmon|shrimp|shellfish)"),
          accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:don't|do not|doesn't|does not|never|no longer|stopped|quit|gave up)\s+"
                         r"(?:drink|drinks|drinking)(?:\s+(?P<v>" + _ALCOHOL + r"))?\b"), positive=False,
          accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:am|'m|’m|is|went|have been|'ve been)\s+(?P<v>sober|teetotal|alcohol[- ]free)\b"),
          positive=False, accept=lambda v: True),
    _Rule("alcohol", _rx(_S + r"(?:started|start|starting|began|now|have|had|enjoy|like)\s+(?:having|drinking|to drink"
                         r"|to have)?\s*(?:a\s+|the\s+odd\s+|an\s+occasional\s+)?(?P<v>" + _ALCOHOL + r")\b"),
          accept=lambda v: bool(re.search(r"alcohol|wine|beer|liquor|cocktail|whisk|vodka|gin|rum|tequila|sake"
                                          r"|champagne|spirit|glass of|pint|drink", v, re.I))),
    _Rule("smoking", _rx(_S + r"(?:don't|do not|never|no longer|stopped|quit|gave up)\s+(?:smoke|smoking|vape|vaping)"
                         r"(?P<v>)"), positive=False, accept=lambda v: True),
    _Rule("smoking", _rx(_S + r"(?:smoke|smokes|started smoking|vape|vapes|am a smoker|'m a smoker)(?P<v>)\b"),
          accept=lambda v: True),
    # ---- allergies
    _Rule("allergy", _rx(_S + r"(?:am|'m|’m|is|are|'re|was|became|got)\s+(?:now\s+|also\s+|severely\s+|mildly\s+"
                         r"|really\s+|very\s+)*allergic\s+to\s+" + _VAL), accept=lambda v: bool(v)),
    _Rule("allergy", _rx(_S + r"(?:am|'m|’m|is|are|'re)\s+(?:not|no longer)\s+(?:\w+\s+)?allergic\s+to\s+" + _VAL),
          positive=False, accept=lambda v: bool(v)),
    # (not the state of one: "My cat allergy is gone" is the rule below's)
    _Rule("allergy", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:\w+\s+)?allerg(?:y|ies)\s+(?:is|are)\s+(?:to\s+)?"
                         r"(?!(?:gone|over|cured|better|worse|bad|mild|severe|fine|back|under control)\b)" + _VAL),
          accept=lambda v: bool(v)),
    # "My cat allergy is gone after the shots", "his peanut allergy is cured": that allergy ended
    _Rule("allergy", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?P<v>[a-z]+)\s+allerg(?:y|ies)\s+(?:is|are|has|have)\s+"
                         r"(?:(?:been|now|completely|totally|finally|basically)\s+)*(?:gone|over|cured|outgrown)\b"),
          positive=False, ended=True, accept=lambda v: bool(v)),
    # "the drug I react to is codeine", "What I'm actually allergic to is penicillin"
    _Rule("allergy", _rx(r"(?P<s>)\b(?:the\s+(?:drug|medication|medicine|food|thing)|what)\s+(?:I|we)\s+(?:(?:actually|really"
                         r"|only)\s+)?(?:react|am\s+(?:actually\s+|really\s+)?allergic|['’]m\s+(?:actually\s+|really\s+)?"
                         r"allergic)\s+to\s+is\s+" + _VAL), accept=lambda v: bool(v), speaker=True),
    _Rule("allergy", _rx(r"(?P<s>)(?P<v>\b[a-z]+)\s+(?:don't|doesn't|do not|does not|no longer)\s+(?:\w+\s+)?"
                         r"(?:bother|affect|trigger)\s+me\b"), positive=False, accept=lambda v: bool(v),
          context=_rx(r"\b(?:allerg|react|sneez|shots|symptom|hives|immun)")),
    # ---- medications: a drug known by its name's ending, a dose allowed before it
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|started taking|am on|'m on|’m on|is on|are on|been on|"
                            r"started on|switched to|now on|started|began|begun)\s+(?:now\s+)?" + _DOSE + _DRUG), accept=lambda v: bool(v)),
    _Rule("medication", _rx(r"\b(?:put|started|switched|moved|changed)\s+me\s+(?:over\s+)?(?:on|to|onto)\s+" + _DOSE + _DRUG),
          accept=lambda v: bool(v), speaker=True),
    _Rule("medication", _rx(_S + r"(?:stopped taking|stopped|quit taking|no longer take|don't take|came off|"
                            r"am off|'m off|’m off|am no longer on|'m no longer on|’m no longer on)\s+(?:my\s+)?"
                            + _DRUG), positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("medication", _rx(r"\b(?:took|taken|weaned|switched)\s+me\s+off\s+(?:of\s+)?(?:my\s+)?" + _DRUG),
          positive=False, ended=True, accept=lambda v: bool(v), speaker=True),
    # "I take an albuterol inhaler", "User uses an inhaler for asthma", "I've been using a CPAP": a device taken
    # or used as a medicine; "I take Symbicort for my asthma": a medicine named for the condition it treats
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|use|uses|using|started\s+(?:taking|using)|(?:have|has)\s+been\s+"
                            r"using|rely\s+on|relies\s+on|carry|carries)\s+(?:now\s+)?(?:(?:a|an|the|my|his|her|their)\s+)?"
                            + _MEDICAL_DEVICE), accept=lambda v: bool(v)),
    _Rule("medication", _rx(_S + r"(?:take|takes|taking|started\s+taking|am\s+on|['’]m\s+on|is\s+on|are\s+on|been\s+on)"
                            r"\s+(?:now\s+)?(?P<v>(?-i:[A-Z])[\w-]+(?:\s+(?-i:[A-Z])[\w-]+)?)\s+(?:daily\s+|every\s+day\s+)?"
                            r"for\s+(?:my|his|her|their|the)?\s*(?:" + _CONDITIONS + r")\b"), accept=lambda v: bool(v)),
    # "I stopped using the albuterol inhaler", "User no longer uses the inhaler": the device (or the
    # medicine, used) given up
    _Rule("medication", _rx(_S + r"(?:stopped\s+(?:using|taking|carrying)|stopped|quit\s+(?:using|taking)|no\s+longer"
                            r"\s+(?:use|uses|take|takes|need|needs|carry|carries)|don['’]t\s+(?:use|take|need)|gave\s+up"
                            r"|got\s+rid\s+of|(?:am|['’]m)\s+off)\s+(?:(?:my|the|his|her|their)\s+)?" + _MEDICAL_DEVICE),
          positive=False, ended=True, accept=lambda v: bool(v)),
    _Rule("medication", _rx(_S + r"(?:stopped\s+using|quit\s+using|no\s+longer\s+(?:use|uses|takes))\s+(?:my\s+)?"
                            + _DRUG), positive=False, ended=True, accept=lambda v: bool(v)),
    # "I stopped taking Symbicort": a medicine by its brand, a name no word of the language, taken no more
    _Rule("medication", _rx(_S + r"(?:stopped\s+taking|quit\s+taking|no\s+longer\s+(?:take|takes)|came\s+off|(?:am|['’]m)"
                            r"\s+(?:no\s+longer\s+on|off))\s+(?:my\s+)?(?P<v>(?-i:[A-Z])[\w-]+)(?=\s*(?:[,.;!?]|$|\s+(?:for|because"
                            r"|after|since|last|this|and|but|now|anymore|any\s+more|altogether|completely)\b))"),
          positive=False, ended=True, accept=_brand),
    # ---- how much of a medicine: "I take lisinopril 10mg", "I'm on 20mg of lisinopril", "my lisinopril
    # dose was increased to 20mg" (the medicine is the qualifier: one dose per medicine)
    _Rule("dose", _rx(_S + _TAKING + _DOSE_VALUE + r"\s+(?:of\s+)?" + _DRUG_NAMED)),
    _Rule("dose", _rx(_S + _TAKING + _DRUG_NAMED + r"\s+" + _DOSE_VALUE)),
    _Rule("dose", _rx(r"(?P<s>\b(?:my|our|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)" + _DRUG_NAMED
                      + r"\s+dose\s+(?:is|was|has been|got|just got|went|now)?\s*(?:now\s+)?"
                      r"(?:increased|raised|lowered|reduced|changed|upped|bumped|cut|dropped|doubled|halved|adjusted)?"
                      r"\s*(?:up\s+|down\s+|back\s+)?(?:to\s+)?" + _DOSE_VALUE)),
    # "My levothyroxine went up to 75mcg", "her insulin was lowered to 10 units": a medicine's dose moved,
    # the word "dose" left out
    _Rule("dose", _rx(r"(?P<s>\b(?:my|our|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)" + _DRUG_NAMED
                      + r"\s+(?:has\s+|have\s+)?(?:went|gone|go|goes|was|were|got|just\s+got|has\s+been|been)\s+"
                      r"(?:(?:increased|raised|lowered|reduced|upped|bumped|cut|dropped|doubled|halved|adjusted)\s+)?"
                      r"(?:up\s+|down\s+|back\s+)?to\s+" + _DOSE_VALUE)),
    # "My doctor bumped my Lexapro to 30mg": whose medicine says whose dose
    _Rule("dose", _rx(r"(?:increased|raised|lowered|reduced|changed|upped|bumped|cut|dropped|doubled|halved|adjusted)\s+"
                      r"(?P<s>\b(?:my|our|his|her|their)\s+)" + _DRUG_NAMED + r"(?:\s+dose)?\s+(?:up\s+|down\s+)?to\s+"
                      + _DOSE_VALUE)),
)
