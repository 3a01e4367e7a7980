"""Members across branches on the box: chain member ids, links, and merges staff confirm
(a real SQLite club file; no PostgreSQL needed)."""

from __future__ import annotations

import uuid

import pytest

from chain import members
from club import audit, games, roster
from club.db import connect
from club.errors import Conflict, UserError
from tests.support.web import app  # noqa: F401  (fixture)


@pytest.fixture()
def box(app):  # noqa: F811  (the fixture imported above)
    """The club file of a box with the test club's tables and members."""
    conn = connect(app.config["DATABASE"])
    yield conn
    conn.conn.close()


RON = {"event": "win", "winners": [{"seat": 1, "han": 3, "fu": 30}], "from": 0}


def play(box, table: str, players: list[int]) -> int:
    """One short finished game through the domain layer; returns its id."""
    g = games.start_game(box, table, players, idempotency_key=uuid.uuid4().hex)
    gid = g["game"]["id"]
    for seq, ev in enumerate((RON, {"event": "end"}), start=1):
        games.record_event(box, gid, ev, expected_seq=seq, idempotency_key=uuid.uuid4().hex)
    return gid


def test_chain_id_is_random_and_printed_on_the_card(box):
    cid = members.issue(box, 1, actor="staff:mika")
    assert members.ID_RE.match(cid)
    assert members.issue(box, 1, actor="staff:mika") == cid  # one per member
    assert members.issue(box, 2, actor="staff:mika") != cid
    assert members.qr_text(cid) == "jantaku-member:" + cid
    # the QR's text, or the id typed loosely, reads back as the id
    assert members.parse_chain_id(members.qr_text(cid)) == cid
    assert members.parse_chain_id(" " + cid.lower().replace("-", "") + " ") == cid
    entry = audit.audit_entries(box, target="player:1")[0]
    assert entry["action"] == "chain.issue" and entry["details"]["chain_id"] == cid


@pytest.mark.parametrize("bad", ["", "JM-123", "XX-AAAAAAAAAAAAAAAA", "JM-AAAAAAAAAAAAAAA1"])
def test_chain_member_bad_id_is_refused_in_words(box, bad):
    with pytest.raises(UserError) as e:
        members.parse_chain_id(bad)
    assert e.value.key == "chain.member.bad_id"
    assert "JM-" in e.value.message  # the sentence says what an id looks like


def test_chain_member_guest_gets_no_id(box):
    guest = roster.add_player(box, "ゲスト一", guest=True)
    with pytest.raises(UserError) as e:
        members.issue(box, guest["id"], actor="staff:mika")
    assert e.value.key == "chain.member.guest"
    assert box.execute("SELECT COUNT(*) FROM chain_links").fetchone()[0] == 0


def test_chain_claim_links_a_card_from_another_branch(box):
    cid = members.new_chain_id()
    row = members.claim(box, 3, members.qr_text(cid), actor="staff:mika")
    assert row["kind"] == "claimed" and members.chain_id_of(box, 3) == cid
    assert [p["id"] for p in members.players_of(box, cid)] == [3]
    # the same id claimed for a second player here is one person twice: a merge
    with pytest.raises(Conflict) as e:
        members.claim(box, 4, cid, actor="staff:mika")
    assert e.value.key == "chain.member.id_held" and e.value.code == "merge_needed"
    # a member who has an id already is not silently moved to another
    with pytest.raises(Conflict) as e:
        members.claim(box, 3, members.new_chain_id(), actor="staff:mika")
    assert e.value.key == "chain.member.has_other_id"
    assert members.chain_id_of(box, 3) == cid and members.chain_id_of(box, 4) is None


def test_chain_links_are_append_only(box):
    members.issue(box, 1, actor="staff:mika")
    with pytest.raises(Exception, match="append-only"):
        box.execute("UPDATE chain_links SET chain_id = 'JM-X'")
    with pytest.raises(Exception, match="append-only"):
        box.execute("DELETE FROM chain_links")


def test_chain_merge_of_two_players_on_one_box_after_staff_confirm(box):
    twin = roster.add_player(box, "青木 二", member_no="M-99", allow_similar=True)
    g1 = play(box, "t1", [1, 2, 3, 4])
    g2 = play(box, "t1", [twin["id"], 2, 3, 4])
    kept_id = members.issue(box, 1, actor="staff:mika")
    events_before = box.execute("SELECT * FROM hand_events ORDER BY id").fetchall()

    proposal = members.propose_merge(box, 1, str(twin["id"]))
    keep, other = proposal["records"]
    assert (keep["name"], keep["player_id"], [g["id"] for g in keep["games"]]) == ("青木", 1, [g1])
    assert (other["name"], other["member_no"], [g["id"] for g in other["games"]]) == (
        "青木 二", "M-99", [g2])
    assert proposal["chain_id"] == kept_id
    assert members.chain_id_of(box, twin["id"]) is None  # nothing changes before the confirm

    # a game played after staff looked makes the proposal out of date
    play(box, "t1", [twin["id"], 2, 3, 4])
    with pytest.raises(Conflict) as e:
        members.confirm_merge(box, 1, twin["id"], check=proposal["check"], actor="staff:mika")
    assert e.value.key == "chain.member.stale_proposal"
    assert members.chain_id_of(box, twin["id"]) is None

    proposal = members.propose_merge(box, 1, twin["id"])
    done = members.confirm_merge(box, 1, twin["id"], check=proposal["check"],
                                 actor="staff:mika", reason="同じ人")
    assert done["chain_id"] == kept_id
    assert members.chain_id_of(box, twin["id"]) == members.chain_id_of(box, 1) == kept_id
    assert members.merged_into(box, twin["id"]) == 1 and members.merged_into(box, 1) is None
    # the hand log is exactly as it was, bar the hands of the game played meanwhile
    assert box.execute("SELECT * FROM hand_events ORDER BY id").fetchall()[:len(events_before)] \
        == events_before
    entry = audit.audit_entries(box, target="player:1")[0]
    assert entry["action"] == "chain.merge" and entry["reason"] == "同じ人"
    assert [r["player_id"] for r in entry["details"]["records"]] == [1, twin["id"]]


def test_chain_merged_player_is_one_row_on_the_boxs_leaderboard(app, box):  # noqa: F811
    from club import stats_store
    from scoring import stats as engine

    twin = roster.add_player(box, "青木 二", member_no="M-99", allow_similar=True)
    third = roster.add_player(box, "青木 三", allow_similar=True)
    play(box, "t1", [1, 2, 3, 4])
    play(box, "t1", [twin["id"], 2, 3, 4])
    play(box, "t2", [4, twin["id"], 2, 3])
    play(box, "t1", [third["id"], 2, 3, 4])
    day = box.execute("SELECT max(club_day) FROM stats_lines").fetchone()[0]
    for other in (twin["id"], third["id"]):  # 三 into 二 into 青木: one person thrice
        keep = 1 if other == twin["id"] else twin["id"]
        proposal = members.propose_merge(box, keep, other)
        members.confirm_merge(box, keep, other, check=proposal["check"], actor="staff:mika")

    rows = stats_store.leaderboard(box, "riichi4", day, day)
    ids = [r["player_id"] for r in rows]
    assert sorted(ids) == [1, 2, 3, 4]  # the merged records are not rows of their own
    # the kept member's row is every game of all three records, figured as one player's
    lines = [stats_store._as_line(r) for r in box.execute(
        f"{stats_store._LINE_SQL} WHERE family = 'riichi4'")]
    one = {twin["id"]: 1, third["id"]: 1}
    expected = engine.aggregate([x for x in lines if one.get(int(x.player), int(x.player)) == 1])
    row = rows[ids.index(1)]
    assert row["name"] == "青木" and row["games"] == expected["games"] == 4
    assert {k: row[k] for k in engine.figures(expected)} == engine.figures(expected)
    # the page, too: the member's name once, the merged names nowhere
    with app.test_client() as c:
        page = c.get(f"/leaderboard/?period=day&day={day}&family=riichi4")
        data = c.get(f"/leaderboard/?period=day&day={day}&family=riichi4&format=json"
                     ).get_json()
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "青木 二" not in html and "青木 三" not in html
    assert sorted(r["player_id"] for r in data["rows"]) == [1, 2, 3, 4]
    # a merged player's own page still has their games, as recorded
    assert stats_store.player_lines(box, twin["id"], "riichi4")


def test_chain_merge_of_a_members_two_chain_ids(box):
    """The same person was given an id at two branches: staff here confirm the card's."""
    here = members.issue(box, 2, actor="staff:mika")
    theirs = members.new_chain_id()
    proposal = members.propose_merge(box, 2, members.qr_text(theirs))
    assert proposal["kind"] == "chain_id" and proposal["chain_id"] == theirs
    assert proposal["records"][0]["chain_id"] == here
    members.confirm_merge(box, 2, theirs, check=proposal["check"], actor="staff:mika")
    row = members.link(box, 2)
    # the head office follows previous_chain_id: games under the old id count as the new one's
    assert (row["chain_id"], row["previous_chain_id"], row["kind"]) == (theirs, here, "merged")


def test_chain_merge_with_oneself_is_refused(box):
    with pytest.raises(UserError) as e:
        members.propose_merge(box, 1, 1)
    assert e.value.key == "chain.member.same_player"


def test_chain_desk_shows_the_merge_then_staff_confirm_it(app, box):  # noqa: F811
    from club.accounts import create_staff
    from tests.web.staff_support import STAFF, staff_client

    create_staff(box, *STAFF)
    twin = roster.add_player(box, "青木 二", member_no="M-99", allow_similar=True)
    g1 = play(box, "t1", [twin["id"], 2, 3, 4])
    c = staff_client(app)
    token = c.get("/auth/csrf").get_json()["csrf_token"]
    page = c.get("/staff/players/1/chain")
    assert page.status_code == 200 and "チェーン会員" in page.get_data(as_text=True)
    r = c.post("/staff/players/1/chain/issue", data={"csrf_token": token})
    assert r.status_code == 302
    kept = members.chain_id_of(box, 1)
    # the proposal, as staff see it: both records with names, member numbers and games
    shown = c.get(f"/staff/players/1/chain?other={twin['id']}&lang=en")
    html = shown.get_data(as_text=True)
    assert shown.status_code == 200 and 'data-testid="chain-proposal"' in html
    assert "青木 二" in html and "M-99" in html and f"#{g1}" in html and kept in html
    check = html.split('name="check" value="', 1)[1].split('"', 1)[0]
    assert members.chain_id_of(box, twin["id"]) is None
    # a reason is required, and a wrong check changes nothing
    other_id = str(twin["id"])
    for data, status in (({"other": other_id, "check": check}, 400),
                         ({"other": other_id, "check": "0" * 16, "reason": "同じ人"}, 409)):
        r = c.post("/staff/players/1/chain/merge", json=data,
                   headers={"X-CSRF-Token": token, "Accept": "application/json"})
        assert r.status_code == status and r.get_json()["error"]["message"]
        assert members.chain_id_of(box, twin["id"]) is None
    r = c.post("/staff/players/1/chain/merge",
               data={"csrf_token": token, "other": twin["id"], "check": check,
                     "reason": "同じ人です"})
    assert r.status_code == 302
    assert members.chain_id_of(box, twin["id"]) == kept
    assert members.merged_into(box, twin["id"]) == 1
    audit_page = c.get("/staff/audit?lang=en").get_data(as_text=True)
    assert "two records of one person merged" in audit_page
    # a card from another branch, by its QR's text (the personal link, the id after it)
    other = members.new_chain_id()
    r = c.post("/staff/players/2/chain/claim", json={"card": f"https://club.example/m/x#{other}"},
               headers={"X-CSRF-Token": token, "Accept": "application/json"})
    assert r.status_code == 200 and r.get_json()["chain_id"] == other
    r = c.post("/staff/players/2/chain/claim", json={"card": "hello"},
               headers={"X-CSRF-Token": token, "Accept": "application/json"})
    assert r.status_code == 400 and "JM-" in r.get_json()["error"]["message"]
