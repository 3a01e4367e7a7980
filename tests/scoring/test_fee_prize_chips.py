"""scoring.money (pure): game fees (場代), top prizes (トップ賞) and chip cash-out per rule
set, worked by hand in yen; and the ``[money]`` section of the rules schema."""

from __future__ import annotations

import pytest

from scoring import money
from scoring.errors import RulesError
from scoring.rules import PRESET_IDS, MoneyRules, load_rules


def rules(**money_switches) -> MoneyRules:
    return load_rules({"extends": "nekohouse-4a", "money": money_switches}).money


def test_fee_defaults_charge_nothing_under_every_preset():
    for preset in PRESET_IDS:
        m = load_rules(preset).money
        players = load_rules(preset).table.players
        g = money.game_money(m, list(range(1, players + 1)), [2] + [-1] * (players - 2) + [0], 95)
        assert [s.net for s in g.seats] == [0] * players, preset
        assert (g.fees, g.house_prize, g.player_prize, g.chip_yen_moved) == (0, 0, 0, 0)


def test_fee_per_game_each_player():
    g = money.game_money(rules(fee_mode="per_game", fee=500), [2, 1, 4, 3])
    assert [s.fee for s in g.seats] == [500, 500, 500, 500]
    assert g.fees == 2000 and [s.net for s in g.seats] == [-500] * 4


def test_fee_per_hour_in_started_blocks():
    r = rules(fee_mode="per_hour", fee=600, fee_unit_minutes=15)  # 150 yen per 15 minutes
    # 50 minutes -> 4 blocks = 60 minutes -> 600; 61 minutes -> 5 blocks -> 750
    assert money.fee_per_player(r, 50) == (600, 60)
    assert money.fee_per_player(r, 61) == (750, 75)
    assert money.fee_per_player(r, 45) == (450, 45)  # exactly 3 blocks
    assert money.fee_per_player(r, 0) == (150, 15)  # a game is at least one block
    g = money.game_money(r, [1, 2, 3], minutes=61)
    assert [s.fee for s in g.seats] == [750, 750, 750] and g.minutes == 75


def test_fee_paid_by_the_top_for_the_whole_table():
    r = rules(fee_mode="per_game", fee=400, fee_payer="top")
    g = money.game_money(r, [3, 1, 2, 4])
    assert [s.fee for s in g.seats] == [0, 1600, 0, 0]
    # two shared tops split it; three tops of a 1,000 total: 334 + 333 + 333
    assert [s.fee for s in money.game_money(r, [1, 1, 3, 4]).seats] == [800, 800, 0, 0]
    r3 = rules(fee_mode="per_game", fee=250, fee_payer="top")
    assert [s.fee for s in money.game_money(r3, [1, 1, 1, 4]).seats] == [334, 333, 333, 0]


def test_fee_top_prize_from_the_house():
    g = money.game_money(rules(top_prize=1000), [2, 1, 3, 4])
    assert [s.prize for s in g.seats] == [0, 1000, 0, 0]
    assert (g.house_prize, g.player_prize) == (1000, 0)
    # shared top: half each
    g = money.game_money(rules(top_prize=1000), [1, 1, 3, 4])
    assert [s.prize for s in g.seats] == [500, 500, 0, 0]


def test_fee_top_prize_from_the_other_players():
    g = money.game_money(rules(top_prize=300, top_prize_from="others"), [4, 2, 1, 3])
    assert [s.prize for s in g.seats] == [-300, -300, 900, -300]
    assert (g.house_prize, g.player_prize) == (0, 900)
    # two tops: the two others pay 300 each, 600 split 300 / 300
    g = money.game_money(rules(top_prize=300, top_prize_from="others"), [1, 3, 1, 4])
    assert [s.prize for s in g.seats] == [300, -300, 300, -300]
    # three-player: two others pay 500 each, the top gets 1,000
    g = money.game_money(rules(top_prize=500, top_prize_from="others"), [2, 3, 1])
    assert [s.prize for s in g.seats] == [-500, -500, 1000]


def test_fee_chip_cash_out_between_players():
    g = money.game_money(rules(chip_yen=500), [1, 2, 3, 4], [5, -1, -3, -1])
    assert [s.chip_yen for s in g.seats] == [2500, -500, -1500, -500]
    assert (g.chips_moved, g.chip_yen_moved) == (5, 2500)
    assert sum(s.chip_yen for s in g.seats) == 0


def test_fee_prize_and_chips_together_make_each_players_net():
    r = rules(fee_mode="per_game", fee=600, top_prize=500, chip_yen=200)
    g = money.game_money(r, [2, 1, 4, 3], [-2, 4, -1, -1])
    # seat 1 (top): -600 + 500 + 4 x 200 = 700; seat 0: -600 - 400 = -1000;
    # seats 2 and 3: -600 - 200 = -800
    assert [s.net for s in g.seats] == [-1000, 700, -800, -800]
    # what the players pay in all is the club's fees less the prize it paid
    assert -sum(s.net for s in g.seats) == g.fees - g.house_prize == 2400 - 500


def test_fee_accounts_add_up_a_day():
    r = rules(fee_mode="per_game", fee=500, top_prize=300, top_prize_from="others", chip_yen=100)
    g1 = money.game_money(r, [1, 2, 3, 4], [3, -1, -1, -1])
    g2 = money.game_money(r, [4, 3, 2, 1], [-2, 0, 0, 2])
    lines = [(p, g.seats[i]) for g in (g1, g2) for i, p in enumerate("ABCD")]
    acc = money.accounts(lines)
    # A: fees 1,000; prize +900 - 300 = 600; chips 3 - 2 = 1 -> 100; net -300
    assert acc["A"].as_dict() == {"games": 2, "fee": 1000, "prize": 600, "chips": 1,
                                  "chip_yen": 100, "net": -300}
    # D: fees 1,000; prize -300 + 900; chips -1 + 2 = 1 -> 100; net -300
    assert acc["D"].net == -300 and acc["B"].net == -1000 - 600 - 100
    total = money.total_account(acc.values())
    assert (total.games, total.fee, total.prize, total.chips, total.chip_yen) == (8, 4000, 0, 0, 0)


def test_fee_split_adds_up():
    assert money.split(1000, 3) == [334, 333, 333]
    assert money.split(5, 4) == [2, 1, 1, 1]
    assert sum(money.split(12_345, 7)) == 12_345


@pytest.mark.parametrize(
    "switches, message",
    [
        ({"fee": 500}, "money.fee = 500 with money.fee_mode = 'none'"),
        ({"fee_mode": "per_game"}, "needs money.fee"),
        ({"fee_mode": "per_hour", "fee": 700, "fee_unit_minutes": 10}, "not a whole number"),
        ({"fee_mode": "monthly", "fee": 1}, "money.fee_mode = 'monthly' is not allowed"),
        ({"top_prize": -100}, "money.top_prize = -100"),
        ({"chip_yen": 2_000_000}, "money.chip_yen = 2000000"),
        ({"fee_unit_minutes": 7}, "money.fee_unit_minutes = 7 is not allowed"),
        ({"top_prize_from": "bank"}, "money.top_prize_from = 'bank' is not allowed"),
        ({"chip_yen": "500"}, "money.chip_yen = '500' has the wrong type"),
    ],
)
def test_fee_rules_refuse_what_cannot_be_charged(switches, message):
    with pytest.raises(RulesError, match=message.replace("(", r"\(")):
        rules(**switches)


def test_fee_rules_section_is_stored_with_a_game_and_read_back():
    r = load_rules({"extends": "netmahjong", "money": {"fee_mode": "per_game", "fee": 500}})
    stored = r.to_dict()
    assert stored["money"]["fee"] == 500
    assert money.money_rules(stored["money"]) == r.money
    # a game stored before the section existed: the defaults, nothing charged
    assert money.money_rules(None) == MoneyRules()
