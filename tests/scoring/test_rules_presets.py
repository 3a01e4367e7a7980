"""Rules as data: every preset builds, bad rule files are refused with a sentence
naming the bad value, a club file extends a preset, and docs/rules.md is current."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from scoring import docs
from scoring.errors import RulesError
from scoring.rules import AMOS_TILE_COUNTS, PRESET_IDS, SECTIONS, load_rules

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_every_preset_builds_with_a_bilingual_title(preset):
    rules = load_rules(preset)
    assert rules.name == preset
    ja, sep, en = rules.title.partition(" / ")
    assert sep and CJK.search(ja) and re.search(r"[A-Za-z]{3}", en), rules.title
    assert AMOS_TILE_COUNTS[rules.table.amos_mode] == rules.table.tile_count()
    # a rule set stored with a game comes back identical
    assert load_rules(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "preset,players,tiles,mode",
    [
        ("netmahjong", 4, 136, 1),
        ("nekohouse-4b", 4, 136, 1),
        ("nekohouse-3a", 3, 108, 4),  # 002 自動卓設定表 04 三人標準 108
        ("nekohouse-3b", 3, 112, 5),  # 05 3人花 112: 108 + 春夏秋冬
        ("mcr", 4, 144, 3),  # 03 四人花花 144
    ],
)
def test_tile_sets_match_the_amos_table(preset, players, tiles, mode):
    t = load_rules(preset).table
    assert (t.players, t.tile_count(), t.amos_mode) == (players, tiles, mode)


def test_three_player_presets_have_no_chi_and_no_red_five_of_characters():
    for preset in ("nekohouse-3a", "nekohouse-3b"):
        t = load_rules(preset).table
        assert not t.allow_chi and t.red_fives[0] == 0 and t.removed_tiles == "2345678m"
    assert load_rules("nekohouse-3b").table.red_fives == [0, 4, 4]


def test_unknown_preset_lists_the_valid_ones():
    with pytest.raises(RulesError) as e:
        load_rules("nekohouse-5z")
    for preset in PRESET_IDS:
        assert preset in e.value.message


@pytest.mark.parametrize(
    "over,words",
    [
        ({"table": {"amos_mode": 4}}, "table.amos_mode = 4 deals 108 tiles, but this set has 136"),
        (
            {"table": {"removed_tiles": "2345678m", "red_fives": [0, 1, 1]}},
            "table.amos_mode = 1 deals 136 tiles, but this set has 108",
        ),
        (
            {"table": {"players": 3, "removed_tiles": "2345678m", "amos_mode": 4}},
            "table.red_fives = [1, 1, 1] puts a red 5m in the set",
        ),
        ({"table": {"removed_tiles": "12x"}}, "table.removed_tiles = '12x'"),
        ({"table": {"red_fives": [1, 1]}}, "table.red_fives = [1, 1]"),
        ({"table": {"players": 5}}, "table.players = 5 is not allowed"),
        ({"table": {"flowers": 3}}, "table.flowers = 3 is not allowed"),
        (
            {"points": {"max_limit": "double_yakuman"}},
            "points.max_limit = 'double_yakuman' is not allowed",
        ),
        ({"points": {"honba_ron": 250}}, "points.honba_ron = 250"),
        ({"points": {"riichi_deposit": 0}}, "points.riichi_deposit = 0"),
        (
            {
                "points": {
                    "nofu_table": [
                        {
                            "han": 2,
                            "ron": 1000,
                            "tsumo": [500, 500],
                            "dealer_ron": 1500,
                            "dealer_tsumo": 500,
                        }
                    ]
                }
            },
            "must start at 1 han",
        ),
        (
            {
                "points": {
                    "nofu_table": [{"han": 1, "ron": 1000, "dealer_ron": 1500, "dealer_tsumo": 500}]
                }
            },
            "missing tsumo",
        ),
        (
            {
                "points": {
                    "nofu_table": [
                        {
                            "han": 1,
                            "ron": 1050,
                            "tsumo": [500, 500],
                            "dealer_ron": 1500,
                            "dealer_tsumo": 500,
                        }
                    ]
                }
            },
            "positive multiples of 100",
        ),
        (
            {
                "points": {
                    "nofu_table": [
                        {
                            "han": 1,
                            "limit": "big",
                            "ron": 1000,
                            "tsumo": [500, 500],
                            "dealer_ron": 1500,
                            "dealer_tsumo": 500,
                        }
                    ]
                }
            },
            "limit = 'big'",
        ),
        ({"fu": {"use_fu": False}}, "fu.use_fu = false needs a price list"),
        ({"hand": {"nukidora": "north"}}, "hand.nukidora = 'north' with table.players = 4"),
        ({"hand": {"nukidora": "flowers"}}, "table.flowers = 0"),
    ({"points": {"dora_per_tile": 1500}}, "hand.dora_as_han = true counts them as han too"),
    ({"chips": {"pocchi": 1}}, "chips.pocchi = 1 but hand.pocchi = false"),
        ({"chips": {"yakuman_tsumo": 11}}, "chips.yakuman_tsumo = 11 is not allowed"),
        ({"chips": {"ura": -1}}, "chips.ura = -1"),
        ({"chips": {"yakuman_ron_factor": 0.5}}, "chips.yakuman_ron_factor = 0.5"),
        ({"chips": {"ura": True}}, "chips.ura = True has the wrong type"),
        ({"points": {"kiriage": True}}, "unknown switch points.kiriage"),
    ],
)
def test_contradictory_or_bad_settings_are_refused_naming_the_value(over, words):
    with pytest.raises(RulesError) as e:
        load_rules({"extends": "netmahjong", **over})
    assert words in e.value.message


def test_a_club_file_extends_a_preset(tmp_path):
    club = tmp_path / "our-club.toml"
    club.write_text(
        'extends = "nekohouse-4a"\nname = "our-club"\ntitle = "当店ルール / Our club"\n'
        "[points]\nkiriage_mangan = false\n[chips]\nippatsu = 0\n",
        "utf-8",
    )
    rules = load_rules(str(club))
    base = load_rules("nekohouse-4a")
    assert (rules.name, rules.title) == ("our-club", "当店ルール / Our club")
    assert rules.points.kiriage_mangan is False and rules.chips.ippatsu == 0
    # everything else is the preset's
    assert rules.chips.yakuman_tsumo == base.chips.yakuman_tsumo == 5
    assert rules.game == base.game and rules.table == base.table
    # and a file extending the club file chains
    child = tmp_path / "child.toml"
    child.write_text(f'extends = "{club}"\n[table]\nred_fives = [0, 0, 0]\n', "utf-8")
    assert load_rules(str(child)).points.kiriage_mangan is False


def test_a_bad_club_file_says_which_switch(tmp_path):
    club = tmp_path / "bad.toml"
    club.write_text('extends = "netmahjong"\n[table]\namos_mode = 9\n', "utf-8")
    with pytest.raises(RulesError, match=r"table.amos_mode = 9 is not allowed: choose one of 1, 2"):
        load_rules(str(club))


def test_every_switch_is_documented_with_a_meaning():
    for sec, cls in SECTIONS.items():
        for f in cls.__dataclass_fields__.values():
            assert len(f.metadata.get("doc", "")) > 10, f"{sec}.{f.name} has no meaning"


def test_my_sections_cite_the_rulebooks():
    # every [table], [points] and [chips] switch names where it comes from (except family)
    for sec in ("table", "points", "chips"):
        for f in SECTIONS[sec].__dataclass_fields__.values():
            if f.name != "family":
                assert re.search(r"00[0-4]", f.metadata.get("source", "")), f"{sec}.{f.name}"


# --------------------------------------------------------------------------- docs/rules.md
def test_docs_rules_md_is_up_to_date():
    path = ROOT / "docs" / "rules.md"
    assert path.exists(), "docs/rules.md is missing: run `python -m scoring rules-doc`"
    assert path.read_text("utf-8") == docs.render(), (
        "docs/rules.md is stale: run `python -m scoring rules-doc`"
    )


def test_docs_list_every_switch_preset_and_yaku():
    text = docs.render()
    for sec, cls in SECTIONS.items():
        assert f"## [{sec}]" in text
        for name in cls.__dataclass_fields__:
            assert f"| `{name}` |" in text, f"{sec}.{name}"
    for preset in PRESET_IDS:
        assert f"| `{preset}` |" in text
    from scoring.yaku import YAKU_IDS

    for yid in YAKU_IDS:
        assert f"| `{yid}` |" in text
    assert "### nekohouse-3b" in text and "12000-20000" in text  # a no-fu price list row


def test_rules_doc_check_command(tmp_path):
    out = tmp_path / "rules.md"
    run = [sys.executable, "-m", "scoring", "rules-doc", "--output", str(out)]
    assert subprocess.run(run, cwd=ROOT, capture_output=True, text=True).returncode == 0
    assert out.read_text("utf-8") == docs.render()
    assert subprocess.run(run + ["--check"], cwd=ROOT, capture_output=True).returncode == 0
    out.write_text("old\n", "utf-8")
    stale = subprocess.run(run + ["--check"], cwd=ROOT, capture_output=True, text=True)
    assert stale.returncode == 1 and "rules-doc" in stale.stderr
