"""The guided mode change in real Chromium against the real daemon and simulated tables
(``sim://`` inside the daemon, as in ``python -m web demo``): the console shows what each
drawer needs for the chosen mode and the table's live answer, makes a simulated table
ready ("simulate: set the sticks"), selects the mode, shows it pending until a cycle
applies it, and can cancel it; every mode 00-08 in turn. And the console and the CLI
asking the same table at once: one command in flight, the other refused in words (or a
mode change waiting behind the cycle), never both, never silently.
"""

from __future__ import annotations

import threading
import time

import pytest

from club.floor import modechange
from tablectl import store
from tablectl.modes import MODES
from tests.support.browser import expect, shot
from tests.web.staff_support import (
    cli,
    module_browser,
    no_horizontal_overflow,
    sign_in,
    start_club,
    step,
    stop_club,
    table,
    wait_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
browser = pytest.fixture(scope="module", name="browser")(module_browser)

LAPTOP, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    club = start_club(tmp_path_factory.mktemp("staff-mode"), {
        "t1": ("卓1 四人A", "nekohouse-4a", "mode=1&time_scale=0.001"),
        "t2": ("卓2 三人A", "nekohouse-3a", "mode=4&time_scale=0.03"),   # 2.1 s cycles
    })
    yield club
    stop_club(club)


RULES = {"t1": (4, 1), "t2": (3, 4)}
"""Each table's rule set as (players, AMOS mode): a mode that does not fit is confirmed."""


def select(page, tid: str, mode: int) -> None:
    """Select the mode on the guided page; one that does not fit the table's rules is
    warned about and asked first, and confirmed here."""
    page.click('[data-testid="select-mode"]')
    if modechange.misfit(mode, *RULES[tid]):
        dialog = page.locator("dialog.confirm-dialog")
        expect(dialog).to_be_visible()
        dialog.locator('button[value="ok"]').click()


def guided_change(page, club, tid: str, mode: int, shots: str | None = None) -> None:
    """Floor card -> guided page -> (simulated sticks) -> select -> pending -> cycle -> on."""
    page.goto(club["url"] + "/staff/")
    card = page.locator(f'[data-table="{tid}"]')
    card.locator("select[name=mode]").select_option(f"{mode:02d}")
    card.locator(f'[data-testid="mode-guide-{tid}"]').click()
    page.wait_for_url(f"**/staff/tables/{tid}/mode?mode={mode:02d}")
    target = MODES[mode]
    now = table(club["db"], tid)
    need = target.sticks(now["points"])         # each drawer's amount, not only sticks or none
    wrong = [s for s in range(4) if not target.is_check
             and not modechange.stick_fits(now["points"][s], need[s])]
    if wrong:
        step(page, "sticks")
        for s in range(4):                       # the drawer that must change is marked
            ok = page.locator(f'[data-testid="drawer-{s}"]').get_attribute("data-ok")
            assert ok == ("0" if s in wrong else "1"), (mode, s)
        assert page.locator('[data-testid="select-mode"]').is_disabled()
        if shots:
            shot(page, f"{shots}-needs-sticks")
        page.click('[data-testid="simulate-sticks"]')
        assert "点棒を入れました" in page.locator(".flash").first.text_content()
    step(page, "ready")
    select(page, tid, mode)
    expect(page.locator(".flash").first).to_contain_text("を選択しました")
    step(page, "pending")
    if shots:
        shot(page, f"{shots}-pending")
    page.click('[data-testid="run-cycle"]')
    step(page, "on")
    assert page.locator('[data-testid="mode-now"]').text_content().startswith(f"{mode:02d}")
    state = table(club["db"], tid)
    assert state["mode"] == mode and state["pending_mode"] is None
    if not target.is_check:                       # exactly the playing seats hold sticks
        assert [p is not None for p in state["points"]] == [s in target.seats
                                                            for s in range(4)]


def test_staff_mode_change_to_every_mode_on_a_simulated_table(browser, club):
    page = sign_in(browser, club, LAPTOP)
    order = [4, 5, 6, 7, 8, 0, 2, 3, 1]          # 01 four-player -> every mode -> back
    for i, mode in enumerate(order):
        guided_change(page, club, "t1", mode, shots="staff-mode-sanma" if i == 0 else None)
    events = store.recent_events(club["db"], "t1", limit=500)
    changed = [e["data"]["new"] for e in reversed(events) if e["kind"] == "mode_changed"]
    assert changed == order
    assert page.js_errors == []


def test_staff_mode_change_can_be_cancelled_while_pending(browser, club):
    page = sign_in(browser, club, PHONE)
    page.goto(club["url"] + "/staff/tables/t1/mode?mode=04")
    step(page, "sticks")
    page.click('[data-testid="simulate-sticks"]')
    step(page, "ready")
    select(page, "t1", 4)
    step(page, "pending")
    assert table(club["db"], "t1")["pending_mode"] == 4
    no_horizontal_overflow(page)
    shot(page, "staff-mode-pending-390")
    # Cancel: back to the current mode, whose sticks must be in again first.
    page.click('[data-testid="cancel-mode"]')
    page.wait_for_url("**/staff/tables/t1/mode?mode=01")
    step(page, "sticks")
    assert "取り消す" in page.locator('[data-testid="select-mode"]').text_content()
    page.click('[data-testid="simulate-sticks"]')
    step(page, "ready")
    page.click('[data-testid="select-mode"]')
    step(page, "on")
    state = wait_table(club["db"], "t1", lambda t: t["pending_mode"] is None,
                       "the pending mode cancelled")
    assert state["mode"] == 1
    no_horizontal_overflow(page)
    assert page.js_errors == []


def test_staff_mode_refused_in_words_when_the_sticks_are_wrong(browser, club):
    """Selecting before the sticks are right (from a stale page) is the table's refusal,
    in words, naming the seat; nothing changes."""
    page = sign_in(browser, club, LAPTOP)
    page.goto(club["url"] + "/staff/")
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    r = page.request.post(club["url"] + "/staff/tables/t1/command",
                          headers={"X-CSRF-Token": token, "Accept": "application/json"},
                          data={"command": "mode", "mode": "08"})
    assert r.status == 409
    assert "遊ぶ席にだけ" in r.json()["error"]["message"] and "南" in r.json()["error"]["message"]
    assert table(club["db"], "t1")["pending_mode"] is None


def test_staff_mode_and_cycle_from_console_and_cli_at_once(browser, club):
    """A cycle from the CLI and one from the console at the same moment run one cycle; the
    other is refused naming what runs and who asked. A mode change asked from the console
    while the CLI's cycle runs waits behind it as pending and is then applied."""
    page = sign_in(browser, club, LAPTOP)
    db = club["db"]
    started = len([e for e in store.recent_events(db, "t2", 500) if e["kind"] == "cycle_started"])
    got: dict = {}
    go = threading.Barrier(2)

    def from_cli():
        go.wait()
        got["cli"] = cli(db, "cycle", "t2")

    worker = threading.Thread(target=from_cli)
    worker.start()
    page.goto(club["url"] + "/staff/")
    go.wait()
    deadline = time.monotonic() + 60                # the CLI's request is in the journal
    while store.in_flight(db, "t2") is None:        # (a loaded machine starts it slowly)
        assert time.monotonic() < deadline, "the CLI's cycle never reached the journal"
        time.sleep(0.02)
    page.locator('[data-table="t2"] button[value="cycle"]').click()
    page.wait_for_url("**/staff/")
    flash = page.locator(".flash").first.text_content()
    worker.join(60)
    assert got["cli"].returncode == 0, got["cli"].stdout + got["cli"].stderr
    assert "サイクル実行中" in flash and "t2" in flash     # what runs, in words
    shot(page, "staff-mode-console-refused-while-cli-cycles")
    cycles = [e for e in store.recent_events(db, "t2", 500) if e["kind"] == "cycle_started"]
    assert len(cycles) == started + 1                  # one cycle, not two

    # A mode change from the console while the CLI's cycle runs waits behind it.
    worker = threading.Thread(target=lambda: got.update(cli2=cli(db, "cycle", "t2")))
    worker.start()
    wait_table(db, "t2", lambda t: t["cycle_state"] == "cycling", "the CLI's cycle running")
    page.goto(club["url"] + "/staff/tables/t2/mode?mode=05")
    step(page, "ready")
    select(page, "t2", 5)
    expect(page.locator(".flash").first).to_contain_text("サイクル")  # sent after the cycle
    worker.join(60)
    step(page, "pending", timeout=20000)
    assert got["cli2"].returncode == 0
    assert page.js_errors == []
