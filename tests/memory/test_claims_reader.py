"""`slot_readings.CLAIMS_READER` names what the claims index records for a text: the keys the code
reads from a fixed set of texts (tests/fixtures/claims-readings.json) are the ones recorded
under that number. A change to the slot reader or to `claim_keys` that changes some text's keys
fails here until the number is raised and the file re-recorded, so that stores written by the
old reading get read again by the backfill (worlddb.memory.claims_backfill)."""

from __future__ import annotations

import json

from tests.fixtures import make_claims_readings
from worlddb.memory import slot_readings

RECORDED = json.loads(make_claims_readings.OUT.read_text())
HOW = ("raise worlddb.memory.slot_readings.CLAIMS_READER, then re-record with "
       "`python -m tests.fixtures.make_claims_readings`")


def test_the_recorded_readings_are_the_current_readers():
    assert RECORDED["reader"] == slot_readings.CLAIMS_READER, f"the readings were recorded by another reader: {HOW}"
    assert len(RECORDED["readings"]) == len(make_claims_readings.texts()) > 60


def test_every_text_claims_what_the_reader_recorded():
    now = make_claims_readings.readings()
    changed = {text: (keys, now.get(text)) for text, keys in RECORDED["readings"].items() if now.get(text) != keys}
    reader = RECORDED["reader"]
    assert not changed, f"{len(changed)} texts claim other keys than reader {reader} recorded ({HOW}): {changed}"


def test_the_texts_reach_many_attributes():
    attributes = {attribute for keys in RECORDED["readings"].values() for _, attribute in keys}
    assert {"home", "employer", "phone", "replaces", "prefers:seat", "np:thermostat"} <= attributes
    assert len(attributes) >= 30
