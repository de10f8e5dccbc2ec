"""Things one has one of: the rules of car, phone, commute and weight, and of providers, banks and schools.

Contract: ``THINGS`` holds, in table order, the rules of one's vehicle and phone (with the
commute and one's weight, which the table reads among them) and of the people and places one has
one of: a carer or a service provider, a bank, a school.
"""

from __future__ import annotations

import re

from worlddb.extract._slot_rules._base import (
    _APPOSITION_END,
    _S,
    _VAL,
    _name,
    _org,
    _Rule,
    _rx,
    _school,
)
from worlddb.extract._slot_words import (
    _CAR_MAKES,
    _CAR_MODELS,
    _KIN_RE,
    _MONTHS,
    _PHONE_MAKES,
    _WEEKDAYS,
)

#: a day named as the one something happened on: what was done then was done once ("took the train
#: to work today"), not as a habit
_ONE_DAY = _rx(r"\b(?:today|tonight|yesterday|this (?:morning|afternoon|evening)|last night|for once)\b")


def _car(value: str) -> bool:
    """A car's name: a make in it ("2015 Honda Civic"), a model said alone ("Civic"), or a
    Tesla's "Model 3"."""
    words = value.lower().split()
    return any(w in _CAR_MAKES or w in _CAR_MODELS for w in words) or \
        bool(re.match(r"model [3sxy]\b", value.lower()))


#: the words that end a device's model name ("a Pixel 6a at the moment", "an iPhone 13 for work")
_AFTER_MODEL = r"(?:at|in|on|for|with|and|but|or|now|these|since|last|this|from|to|as|because)\b"

#: the people someone goes to for a service (a provider's qualifier)
_CARERS = (r"dentist|doctor|gp|physician|therapist|pediatrician|paediatrician|vet|veterinarian|accountant|lawyer|"
           r"attorney|hairdresser|barber|dermatologist|psychiatrist|counsel+or|landlord|landlady|trainer|optometrist|"
           r"ob-?gyn|cardiologist|chiropractor|mechanic|realtor|nanny|babysitter|tutor")

#: whose a carer is: the speaker's, a pronoun's, a relative's ("my sister's dentist") or a name's ("Biscuit's
#: vet", "Tom's dentist"); a day's or a month's is no one's ("Monday's doctor")
_OWNER = (r"(?:(?:my|our|his|her)(?:\s+(?:" + _KIN_RE + r")['’]s)?|(?!(?:today|tonight|tomorrow|yesterday|"
          + _WEEKDAYS + r"|" + _MONTHS + r")['’])(?-i:[A-Z][a-z]+)['’]s)")


THINGS: tuple[_Rule, ...] = (
    # ---- vehicles and phones
    _Rule("car", _rx(_S + r"(?:drive|drives|driving|drove|own|owns|bought|got|leased|leasing|picked up)\s+(?:(?:myself|"
                     r"himself|herself|themselves|ourselves)\s+)?(?:the\s+"
                     r"keys\s+to\s+)?(?:a|an|the|my|our|his|her)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?"
                     r"(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=_car),
    # ("my Honda Civic is in the shop": the name's words are capitalised or a number, not "is")
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*"
                     r"(?:\s+(?-i:[A-Z0-9])[\w-]*){0,2})"),
          accept=lambda v: v.split()[0].lower() in _CAR_MAKES | _CAR_MODELS or (
              len(v.split()) > 1 and v.split()[0].isdigit() and v.split()[1].lower() in _CAR_MAKES | _CAR_MODELS)),
    _Rule("car", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:car|vehicle|truck|suv|ride)\s+is\s+(?:now\s+)?"
                     r"(?:a|an|the)\s+(?:new\s+|used\s+|old\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+[\w-]+){0,2})"),
          accept=_car),
    _Rule("car", _rx(_S + r"(?:sold|totaled|totalled|crashed|got rid of|traded in|traded|gave away|scrapped)\s+(?:the|"
                     r"my|our|his|her)\s+(?:old\s+)?(?P<v>car|vehicle|truck|van|suv|(?-i:[A-Z])[\w-]+)\b"),
          positive=False, ended=True, accept=lambda v: True),
    # "Traded the old car in for a Mazda CX-5": what was taken in its place
    _Rule("car", _rx(_S + r"(?:traded|swapped)\s+(?:in\s+)?(?:the|my|our|his|her)\s+(?:old\s+)?[\w-]+(?:\s+in)?\s+for\s+"
                     r"(?:a|an|the)\s+(?:new\s+|used\s+)?(?P<v>(?:\d{4}\s+)?(?-i:[A-Z])[\w-]*(?:\s+(?!(?:last|this|next|on|in|at"
                     r"|for|to|with|and|yesterday|today)\b)[\w-]+){0,2})"),
          accept=_car),
    # "I use a Pixel 6a", "I'm on an iPhone 13 at the moment": the phone by its make
    _Rule("device", _rx(_S + r"(?:use|uses|using|have|has|got|bought|switched to|upgraded to|carry"
                        r"|(?:(?<=\bI\s)|(?<=\bI)['’])(?:am|m)\s+(?:now\s+|still\s+)?on)\s+(?:(?:a|an|the|my)\s+)?"
                        r"(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+(?!" + _AFTER_MODEL + r")[\w+-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    _Rule("device", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+\d+\w*)?(?:\s+(?:Pro|Max|Plus|Ultra|"
                        r"Mini))?)\b"), accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # "My phone is an iPhone 12", "my new phone is a Pixel 8": the phone by its make (a carrier is a provider)
    _Rule("device", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?:phone|cell\s*phone|cell|mobile|smartphone)\s+is\s+"
                        r"(?:now\s+)?(?:a|an|the)\s+(?:new\s+)?(?P<v>(?-i:[A-Za-z]+)(?:\s+[\w+-]+){0,2})"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # "Swapped the Galaxy for a Fairphone 4": the phone taken in the old one's place
    _Rule("device", _rx(_S + r"(?:traded|swapped)\s+(?:in\s+)?(?:the|my|our|his|her)\s+(?:old\s+)?[\w-]+"
                        r"(?:\s+\d+\w*)?(?:\s+in)?\s+(?:for|with)\s+(?:a|an|the)\s+(?:new\s+|used\s+)?"
                        r"(?P<v>(?-i:[A-Za-z]+)(?:\s+[\w+-]+)?)"),
          accept=lambda v: v.split()[0].lower() in _PHONE_MAKES),
    # (not "Took the train to work today because of the snow": a way to work taken once)
    _Rule("commute", _rx(_S + r"(?:take|takes|took|taking|ride|rides|riding|catch|catching)\s+the\s+(?P<v>bus|train|"
                         r"subway|metro|tram|ferry|tube|light rail)\s+(?:in\s+)?to\s+(?:work|the office|school|campus)"),
          accept=lambda v: True, unless=_ONE_DAY),
    _Rule("commute", _rx(_S + r"(?:now\s+)?(?P<v>bike|bikes|biking|cycle|cycles|cycling|walk|walks|walking|drive|drives|"
                         r"driving|carpool|carpools|carpooling|run|runs|running|scooter|commute by \w+)\s+(?:in\s+)?to\s+"
                         r"(?:work|the office|school|campus)"), accept=lambda v: True, unless=_ONE_DAY),
    # "I commute by car", "we commute by train most days"
    _Rule("commute", _rx(_S + r"(?:commute|commutes|commuted|commuting|get to work|go to work)\s+(?:by|via|on)\s+(?:the\s+)?"
                         r"(?P<v>car|bike|bicycle|bus|train|subway|metro|tram|ferry|scooter|motorcycle|foot)\b"),
          accept=lambda v: True),
    _Rule("commute", _rx(r"(?P<s>)instead\s+of\s+(?:taking|riding|driving|catching)\s+the\s+(?P<v>bus|train|subway|metro|"
                         r"tram|ferry|car)"), positive=False, ended=True, accept=lambda v: True),
    _Rule("weight", _rx(_S + r"(?:weigh|weighs|weighed|am down to|'m down to|’m down to|am up to|'m up to|’m up to|"
                        r"'m at|am at|got down to|got up to|dropped to|hit)\s+(?:about\s+|around\s+|roughly\s+)?"
                        r"(?P<v>\d+(?:\.\d+)?\s*(?:pounds|lbs|lb|kg|kilos|kilograms|stone))")),
    # a note that opens with the weight reached: "Down to 78 kg now!"
    _Rule("weight", _rx(r"(?:^|(?<=[.!?]\s))(?P<s>)(?:down|up)\s+to\s+(?:about\s+|around\s+|roughly\s+)?"
                        r"(?P<v>\d+(?:\.\d+)?\s*(?:pounds|lbs|lb|kg|kilos|kilograms|stone))")),
    # ---- people and places one has one of
    # ("my primary care doctor", "our family dentist": up to two words before the carer)
    _Rule("provider", _rx(r"(?P<s>\b" + _OWNER + r"\s+)(?:\w+\s+){0,2}?(?P<q>" + _CARERS + r")\s+(?:is\s+(?:now\s+)?"
                          r"|will be\s+)(?:a\s+[\w\s]{0,40}?(?:called|named)\s+)?" + _VAL), accept=_name),
    # "Dr. Kim is my new doctor", "Dr. Kim, my new GP, ordered blood work": a doctor's name, then the role
    _Rule("provider", _rx(r"(?P<v>(?:Dr|Doctor)[.\u2024]?\s+(?-i:[A-Z])\w+(?:\s+(?-i:[A-Z])\w+)?)(?:\s+is|,)\s+"
                          r"(?P<s>" + _OWNER + r")\s+(?:new\s+)?(?:\w+\s+){0,2}?(?P<q>" + _CARERS + r")" + _APPOSITION_END),
          accept=_name),
    # "I found a new dentist, Dr. Kim", "we got a new vet: Dr Ruiz"
    _Rule("provider", _rx(_S + r"(?:found|got|have|picked|chose|switched\s+to)\s+(?:a\s+)?new\s+(?P<q>" + _CARERS
                          + r")\s*(?:[,:]\s*|\s+(?:called|named)\s+|\s[-–—]\s)" + _VAL), accept=_name),
    # "We moved Bramble to a vet closer to home, Meadow Vets", "I switched to a new dentist: Dr Ruiz": a
    # carer moved to, named after it (the household's, whoever is taken there)
    _Rule("provider", _rx(_S + r"(?:moved|switched|changed|took)\s+(?:(?:him|her|them|(?-i:[A-Z][a-z]+)|(?:my|our|the)"
                          r"\s+\w+)\s+)?(?:over\s+)?to\s+(?:a|another|a\s+new|a\s+different)\s+(?:new\s+)?(?P<q>"
                          + _CARERS + r")(?:\s+(?!(?:called|named)\b)[\w'’ ]{1,30}?)?(?:\s*[,:]\s*|\s+(?:called|named)\s+"
                          r"|\s[-–—]\s)" + _VAL), accept=_name, speaker=True),
    # "We registered with the Elm Grove practice after the move", "I signed up at Riverside Surgery": a practice
    # one registers with is the carer of its kind (a GP's surgery or practice, a dental practice, vets)
    _Rule("provider", _rx(_S + r"(?:re-?registered|registered|signed\s+up|joined)\s+(?:with|at)\s+(?:the\s+|a\s+new\s+)?"
                          r"(?P<v>(?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*){0,3}\s+(?P<q>surgery|(?:dental\s+)?practice"
                          r"|medical\s+cent(?:re|er)|health\s+cent(?:re|er)|vets|veterinary\s+practice))\b"),
          accept=_name, speaker=True),
    # "My GP surgery is Riverside Medical Centre": the practice of a carer, the carer's
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our)\s+)(?P<q>gp|doctor|dentist|dental|vet)(?:['’]s)?\s+(?:surgery|practice|office"
                          r"|clinic)\s+is\s+(?:now\s+)?(?:at\s+|with\s+)?" + _VAL), accept=_name),
    # "I stopped seeing Dr. Kim": a doctor one no longer sees, whatever kind
    _Rule("provider", _rx(_S + r"(?:stopped|quit)\s+(?:seeing|going to)\s+(?P<v>(?:Dr|Doctor)[.\u2024]?\s+(?-i:[A-Z])\w+"
                          r"(?:\s+(?-i:[A-Z])\w+)?)"), positive=False, ended=True, accept=_name),
    _Rule("provider", _rx(_S + r"(?:now\s+)?(?:see|sees|seeing|go to|goes to|switched to)\s+(?P<v>(?:Dr|Doctor)"
                          r"[.\u2024]?\s+(?-i:[A-Z])\w+(?:\s+(?-i:[A-Z])\w+)?)"), accept=_name,
          context=_rx(r"\b(dentist|dental|doctor|therap|vet|dermatolog|psychiatr|optometr|physician|gp|clinic"
                      r"|p(?:a)?ediatric)")),
    # "I switched dentists", "We changed paediatricians": the carer of that kind one had is left, for
    # one the text may name after it ("...; Leo sees Dr. Brennan now")
    _Rule("provider", _rx(_S + r"(?:switched|changed|swapped)\s+(?P<q>" + _CARERS + r")s\b(?P<v>)"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our|his|her)\s+)(?:new\s+)?(?P<q>internet|broadband|wi-?fi|isp|phone|cell|"
                          r"mobile|electric(?:ity)?|power|gas|energy|insurance|(?:health|car|auto|home|renters|life|pet)\s+"
                          r"(?:insurance|policy)|cable|tv|streaming)\s+(?:provider|company|carrier|plan|service|supplier)?\s*"
                          r"(?:is\s+(?:now\s+)?(?:(?:through|with|from|by)\s+)?|(?:through|with|from)\s+)" + _VAL),
          accept=lambda v: _org(v) and v.split()[0].lower() not in _PHONE_MAKES),
    # ("We switched broadband to Hyperoptic", "switched our internet providers to Sonic")
    _Rule("provider", _rx(_S + r"(?:switched|moved|changed|transferred|ported)\s+(?:(?:our|my|the)\s+)?(?P<q>internet|"
                          r"broadband|phone plan|phone|cell|mobile|(?:(?:health|car|auto|home|renters|life|pet)\s+)?"
                          r"(?:insurance|policy)|electricity|power|gas|energy|cable|tv)\s+(?:providers?\s+|suppliers?\s+|"
                          r"service\s+|plan\s+)?(?:over\s+)?to\s+" + _VAL), accept=_org),
    # "I ported my number to Visible": a phone number moves with its owner to a new carrier
    _Rule("provider", _rx(_S + r"ported\s+(?:my|our|his|her)\s+(?:phone\s+|cell\s+|mobile\s+)?number\s+(?:over\s+)?"
                          r"to\s+" + _VAL), accept=_org, qualifier="phone"),
    _Rule("provider", _rx(r"(?P<s>\b(?:my|our)\s+)?(?:home\s+)?(?P<q>internet|broadband|wi-?fi)\s+(?:is|was|comes)?\s*"
                          r"(?:now\s+)?(?:through|with|from|by)\s+" + _VAL), accept=_org),
    _Rule("provider", _rx(_S + r"(?:went|go|going|switched|signed up|are now|'re now)\s+(?:over\s+)?(?:with|to)\s+"
                          r"(?P<v>(?-i:[A-Z])[\w&+-]*(?:\s+(?-i:[A-Z])[\w&+-]*){0,3})"),
          accept=_org, context=_rx(r"\b(internet|broadband|fiber|fibre|wi-?fi|carrier|insurance|electric)")),
    _Rule("provider", _rx(_S + r"(?:cancel+ed|dropped|ditched|got rid of|left)\s+(?:our|my|the)?\s*(?:old\s+)?"
                          r"(?P<v>[\w ]{0,20}?)(?P<q>cable internet|internet|broadband|phone plan|insurance|cable)\b"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("bank", _rx(_S + r"(?:bank|banks|banking)\s+(?:with|at)\s+" + _VAL), accept=_org),
    _Rule("bank", _rx(r"(?P<s>\b(?:my|our)\s+)(?:new\s+)?(?:bank|credit union)\s+is\s+(?:now\s+)?" + _VAL), accept=_org),
    _Rule("bank", _rx(_S + r"(?:(?:moved|switched|transferred)\s+(?:everything|(?:all\s+(?:of\s+)?)?(?:my|our)\s+(?:money|"
                      r"accounts?|savings|checking|banking))|switched\s+banks?)\s+(?:over\s+)?to\s+(?:a\s+|an\s+)?(?:credit union|bank|online bank)?,?\s*"
                      r"(?:called\s+)?" + _VAL), accept=_org),
    # "We changed banks", "I've switched banks": the bank one had is left, for one the text may name after it
    _Rule("bank", _rx(_S + r"(?:switched|changed|swapped)\s+banks\b(?!\s+(?:over\s+)?to\b)(?P<v>)"),
          positive=False, ended=True, accept=lambda v: True),
    _Rule("bank", _rx(_S + r"(?:closed|shut)\s+(?:my|our|the)\s+(?:old\s+)?(?P<v>[\w ]{0,20}?)(?:checking|savings|bank)"
                      r"\s+account"), positive=False, ended=True, accept=lambda v: True),
    # "opened a checking account at Ally", "moved banks and opened one at Ally": an account opened in a
    # text that speaks of banking is at one's bank ("opened an account at Netflix" is not)
    _Rule("bank", _rx(_S + r"(?:opened|open|opening)\s+(?:(?:a|an|my)\s+(?:new\s+)?(?:(?:checking|savings|bank|joint|"
                      r"current)\s+)?account|one)\s+(?:at|with)\s+" + _VAL), accept=_org,
          context=_rx(r"\b(?:bank\w*|checking|savings|credit union|(?:joint|current)\s+account)\b")),
    # "I'm done with my old bank", "we left our bank": whichever bank it was
    _Rule("bank", _rx(_S + r"(?:done\s+with|left|ditched|dumped|quit|got\s+rid\s+of|walked\s+away\s+from)\s+(?:my|our"
                      r"|the)\s+(?:old\s+)?(?P<v>bank|credit union)\b"), positive=False, ended=True, accept=lambda v: True),
    # "everything's at Ally now", said of one's money
    _Rule("bank", _rx(r"(?P<s>)\b(?:everything|all\s+(?:of\s+)?(?:my|our)\s+(?:money|accounts?|savings))(?:['’]s|\s+is|"
                      r"\s+are)\s+(?:now\s+)?(?:at|with)\s+" + _VAL), accept=_org, speaker=True,
          context=_rx(r"\b(?:bank|checking|savings|account)")),
    _Rule("school", _rx(r"(?P<s>\b(?:I|we|he|she|they|(?-i:[A-Z][a-z]+)|(?:my|our)\s+(?:\w+\s+)?(?:son|daughter|kid|"
                        r"child|boy|girl)(?:\s+(?-i:[A-Z][a-z]+))?)\s+(?:(?:now|just|also|still)\s+)*)(?:goes|go|going|"
                        r"attends|attend|attending|started|starts|is enrolled|enrolled|transferred|switched|moved)\s+"
                        r"(?:up\s+)?(?:(?:at|to|in|into)\s+)?" + _VAL), accept=_school),
    # "I'm a junior at UCLA", "she's a grad student at MIT": a student's year or kind names the school
    _Rule("school", _rx(_S + r"(?:a|an)\s+(?:(?:first|second|third|fourth|final)[- ]year\s+|(?:grad|graduate|undergrad|"
                        r"undergraduate|PhD|doctoral|master['’]?s|medical|med|law|nursing|transfer|exchange|part-time|"
                        r"full-time)\s+)?(?:freshman|sophomore|junior|senior|student|undergrad|undergraduate)\s+at\s+"
                        + _VAL), accept=_org),
    # "I graduated from UCLA", "Emma finished at Lincoln": a school one is done with
    _Rule("school", _rx(_S + r"(?:graduated|graduating)\s+from\s+" + _VAL), positive=False, ended=True, accept=_org),
    # "I'm doing a part-time MBA at Boston University": a degree studied for at a named school
    _Rule("school", _rx(_S + r"(?:doing|studying\s+for|pursuing|working\s+on|finishing|enrolled\s+in|in)\s+(?:a|an|my|the|"
                        r"his|her)\s+(?:(?:part-time|full-time|online|evening|two-year|one-year)\s+)?(?:MBA|master['’]?s"
                        r"|PhD|doctorate|degree|bachelor['’]?s|associate['’]?s|law degree|nursing degree|MFA|JD)"
                        r"(?:\s+(?:degree|program|programme|in\s+[\w ]{1,30}?))?\s+at\s+" + _VAL), accept=_school),
    # "I enrolled in a data science bootcamp": a program or school one is now enrolled in
    _Rule("school", _rx(_S + r"(?:enrolled|enrolling|enroll|registered)\s+(?:in|at)\s+(?:a|an|the)\s+"
                        r"(?P<v>[\w'’ -]{0,30}?(?:bootcamp|boot camp|program|programme|college|university|school"
                        r"|academy))\b"), accept=lambda v: True),
    # "Dropped my daughter off at Jefferson Middle School": where a child is taken to, or fetched from, is
    # their school (a value with a school's word: not "dropped my son off at practice")
    _Rule("school", _rx(r"\b(?:drop|drops|dropped|dropping|pick|picks|picked|picking)\s+(?:off\s+|up\s+)?(?P<s>(?:my|our)\s+"
                        r"(?:\w+\s+)?(?:son|daughter|kid|child|boy|girl)(?:\s+(?-i:[A-Z][a-z]+))?)\s+(?:off\s+|up\s+)?"
                        r"(?:at|from)\s+" + _VAL), accept=_school),
    _Rule("school", _rx(r"(?P<s>\b(?:my|his|her|their|(?-i:[A-Z][a-z]+)'s)\s+)first\s+(?:day|week)\s+(?:at|of)\s+"
                        + _VAL), accept=_school),
)
