"""MCR 清么九 (All Terminals) and 么九刻 (Pung of Terminals or Honors): the decision.

004 (seeds/004_31b80ee9b4db5b91.txt) 64点 清么九, line 49: 「老頭牌(数牌の1と9)のみで作った手。
无字、碰碰胡、全带么とは複合しない。」 names no 么九刻; its own 混么九 (line 99: 「么九刻、全帯么、
碰碰和とは複合しない」) and the Chinese Official rules do. The club's preset does not count 么九刻
beside 清么九 (hand.mcr_all_terminals_terminal_pungs = false, as PyMahjongGB); the switch
counts one per pung for a club that reads the line to the letter.
"""

from __future__ import annotations

from scoring.mcr import score_hand
from scoring.rules import load_rules
from tests.support.mcr import oracle_fans

# four pungs of terminals and a pair of terminals, two of the pungs called
LINE = {"hand": "111999p11s", "win": "1s", "melds": [{"type": "pon", "tiles": "111m"},
                                                      {"type": "pon", "tiles": "999m"}]}


def fans(rules) -> dict[str, int]:
    out = score_hand(dict(LINE), rules)
    assert "fans" in out, out
    return {f["name"]: f.get("count", 1) for f in out["fans"]}


def test_the_preset_counts_no_terminal_pung_beside_all_terminals():
    assert load_rules("mcr").hand.mcr_all_terminals_terminal_pungs is False
    got = fans("mcr")
    assert got.get("all_terminals") == 1 and "pung_of_terminals_or_honors" not in got
    # the peer scores it so too
    gb = oracle_fans(LINE)
    assert "all_terminals" in gb and "pung_of_terminals_or_honors" not in gb


def test_the_switch_counts_one_terminal_pung_per_pung():
    rules = load_rules({"extends": "mcr", "hand": {"mcr_all_terminals_terminal_pungs": True}})
    got = fans(rules)
    assert got.get("all_terminals") == 1 and got.get("pung_of_terminals_or_honors") == 4
