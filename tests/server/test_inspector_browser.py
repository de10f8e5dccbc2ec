"""The memory inspector in a real browser: Debian's headless Chromium, driven through
selenium and its chromedriver, against `worlddb serve --transport http` on loopback. A person
signs in with the token, searches, accepts a merge proposal and retires a memory; the file
changes accordingly, each action is a line of the audit log, and screenshots of the pages are
saved. A person also retires a change as never true (the retire form's box, memory_retire's
wrong), and a memory first retired as over as never true later.

`.ci/run` installs chromium and chromium-driver when they are missing; this test skips (with
the reason) only where they could not be installed.
"""

from __future__ import annotations

import json
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from bench.serverproc import HttpServer
from tests.support import ALICE, open_engine

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
TOKEN = "browser-test-token-90ad"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,1400")

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="Debian's chromium and chromium-driver are not installed (.ci/run installs them with apt-get)")


@pytest.fixture
def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="worlddb-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    # the driver's path is given, so selenium never runs its manager or downloads anything
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.implicitly_wait(5)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def navigate(browser, action) -> None:
    """Do what loads a new page (a click, a submit), and wait until the new page has loaded.

    The old page is marked with a window property, which a new document does not have. (Waiting
    for the old <html> element to go stale raced: while the page is replaced, chromium may
    answer the staleness probe with a generic "Node ... does not belong to the document"
    error instead of a stale-element one.)"""
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    browser.execute_script("window.__worlddbOldPage = true")
    action()
    loaded = "return window.__worlddbOldPage === undefined && document.readyState === 'complete'"
    WebDriverWait(browser, 30, ignored_exceptions=(WebDriverException,)).until(lambda b: b.execute_script(loaded))


def test_a_person_searches_accepts_a_merge_and_retires_a_memory(browser, tmp_path):
    from selenium.webdriver.common.by import By

    db = tmp_path / "memory.db"
    with open_engine(db) as engine:
        sarah = engine.write_memory("My manager Sarah Connor approved the Q3 budget.", ALICE)
        sara = engine.write_memory("Sara Conner wants the quarterly report by Friday.", ALICE)
        vim = engine.write_memory("My favourite editor is Vim.", ALICE)
        (proposal,) = engine.merge_proposals(ALICE).proposals
    shots = tmp_path / "screenshots"
    shots.mkdir()
    audit = tmp_path / "audit.jsonl"
    server = HttpServer(db, embedder="hash", default_user="alice", env={"WORLDDB_TOKEN": TOKEN},
                        extra=("--audit-log", str(audit))).start()
    base = f"http://127.0.0.1:{server.port}/ui/"
    try:
        browser.get(base)
        assert browser.current_url.startswith(base + "login")  # the token first
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.login button").click)
        assert browser.find_element(By.TAG_NAME, "h1").text == "What this memory holds"
        assert TOKEN not in browser.current_url and TOKEN not in browser.page_source
        browser.save_screenshot(str(shots / "1-scopes.png"))

        navigate(browser, browser.find_element(By.LINK_TEXT, "user:alice").click)
        search = browser.find_element(By.NAME, "q")
        search.send_keys("quarterly report")
        navigate(browser, search.submit)
        results = browser.find_element(By.CSS_SELECTOR, "table.hits")
        assert "Sara Conner wants the quarterly report by Friday." in results.text
        browser.save_screenshot(str(shots / "2-search.png"))

        navigate(browser, browser.find_element(By.LINK_TEXT, "Merge proposals").click)
        row = browser.find_element(By.ID, f"p-{proposal.id[:12]}")
        assert "Sara Conner" in row.text and "Sarah Connor" in row.text
        navigate(browser, row.find_element(By.CSS_SELECTOR, "button.accept").click)
        assert "are now one identity" in browser.find_element(By.CSS_SELECTOR, ".flash").text

        browser.get(f"{base}entity/{sarah.entities[0].id}")
        assert "Sara Conner" in browser.find_element(By.CSS_SELECTOR, "dl.facts").text  # same as
        assert browser.find_elements(By.CSS_SELECTOR, "figure.neighbourhood svg circle")
        browser.save_screenshot(str(shots / "3-entity.png"))

        browser.get(f"{base}scope?key=user%3Aalice")
        navigate(browser, browser.find_element(By.LINK_TEXT, "My favourite editor is Vim.").click)
        browser.find_element(By.ID, "retire-reason").send_keys("switched to Helix")
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.retire button").click)
        assert "Retired" in browser.find_element(By.CSS_SELECTOR, ".flash").text
        assert browser.find_element(By.CSS_SELECTOR, ".badge.retired")
        browser.save_screenshot(str(shots / "4-retired.png"))
    finally:
        # uvicorn shuts down on SIGTERM, then re-raises it: -15 is a clean stop too
        assert server.stop() in (0, -signal.SIGTERM) and "Traceback" not in server.log(), server.log()[-2000:]
    for shot in shots.iterdir():
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    with open_engine(db) as engine:
        (accepted,) = engine.merge_proposals(ALICE, status="accepted").proposals
        assert accepted.id == proposal.id
        retired = engine.read_memory(vim.id, ALICE)
        assert retired.retired and retired.retire_reason == "switched to Helix"
        # the accepted merge changed what recall finds: either name reaches both memories
        lanes = {h.id: h.lanes for h in engine.recall("Sarah Connor", ALICE).results}
        assert lanes[sara.id].get("entity") and lanes[sarah.id].get("entity")
        assert vim.id not in lanes
    # (the lines before are the readiness probes of HttpServer.start, refused for want of a token)
    done = [r for r in map(json.loads, audit.read_text().splitlines()) if (r["tool"] or "").startswith("inspector_")]
    assert [(r["principal"], r["tool"], r["scopes"], r["outcome"]) for r in done] == [
        ("token", "inspector_login", [], "ok"),
        ("token", "inspector_accept_merge", ["user:alice"], "ok"),
        ("token", "inspector_retire", ["user:alice"], "ok"),
    ]
    assert "Helix" not in audit.read_text() and TOKEN not in audit.read_text()


def test_a_person_retires_a_change_as_never_true_and_a_retired_memory_as_never_true_later(browser, tmp_path):
    from selenium.webdriver.common.by import By

    db = tmp_path / "memory.db"
    with open_engine(db) as engine:
        austin = engine.write_memory("I live in Austin.", ALICE, valid_from="2020-01-01")
        denver = engine.write_memory("I moved to Denver.", ALICE, valid_from="2023-05-01")
        vim = engine.write_memory("My favourite editor is Vim.", ALICE, valid_from="2021-01-01")
        assert denver.superseded == [austin.id]
    audit = tmp_path / "audit.jsonl"
    server = HttpServer(db, embedder="hash", default_user="alice", env={"WORLDDB_TOKEN": TOKEN},
                        extra=("--audit-log", str(audit))).start()
    base = f"http://127.0.0.1:{server.port}/ui/"
    try:
        browser.get(base)
        browser.find_element(By.ID, "token").send_keys(TOKEN)
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.login button").click)

        # a current change that was never true: ticked, what it replaced is current again
        browser.get(f"{base}memory/{denver.id}")
        browser.find_element(By.ID, "retire-reason").send_keys("misheard")
        browser.find_element(By.ID, "retire-wrong").click()
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.retire button").click)
        assert "Retired as never true" in browser.find_element(By.CSS_SELECTOR, ".flash").text
        browser.get(f"{base}memory/{austin.id}")
        assert browser.find_element(By.CSS_SELECTOR, ".badge.current")
        assert browser.find_elements(By.ID, "retire-wrong")  # current again, so it can be retired again

        # retired as over (the box left unticked), then found never to have been true
        browser.get(f"{base}memory/{vim.id}")
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.retire button").click)
        assert "Retired: it stays readable" in browser.find_element(By.CSS_SELECTOR, ".flash").text
        browser.find_element(By.ID, "retire-reason").send_keys("never used it")
        navigate(browser, browser.find_element(By.CSS_SELECTOR, "form.retire.wrong button").click)
        assert "Retired as never true" in browser.find_element(By.CSS_SELECTOR, ".flash").text
        assert browser.find_element(By.CSS_SELECTOR, ".badge.retired").text == "retired, never true"
        assert not browser.find_elements(By.CSS_SELECTOR, "form.retire")  # nothing left to retire
    finally:
        assert server.stop() in (0, -signal.SIGTERM) and "Traceback" not in server.log(), server.log()[-2000:]
    with open_engine(db) as engine:
        never = engine.read_memory(denver.id, ALICE)
        assert never.retired and never.valid_to == never.valid_from and never.retire_reason == "misheard"
        assert engine.read_memory(austin.id, ALICE).valid_to is None
        never = engine.read_memory(vim.id, ALICE)
        assert never.retired and never.valid_to == never.valid_from and never.retire_reason == "never used it"
    done = [r for r in map(json.loads, audit.read_text().splitlines()) if (r["tool"] or "").startswith("inspector_")]
    assert [(r["tool"], r["scopes"], r["outcome"]) for r in done] == [
        ("inspector_login", [], "ok"), *[("inspector_retire", ["user:alice"], "ok")] * 3]
