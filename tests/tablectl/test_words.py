"""Every text staff see from tablectl comes from the catalogue in Japanese and English:
each code the daemon, the drivers or the store can write has its words, and the values
they name are filled in."""

import re
from pathlib import Path

import pytest

import lexicon
from tablectl import commands, protocol, words

ROOT = Path(__file__).parents[2] / "tablectl"


def _codes_in_source() -> set[str]:
    found = set()
    pattern = re.compile(r'(?:code=|Outcome\.failed\(|error_code=|_set_disconnected\(|'
                         r'note_late_outcome\(cmd\["id"\], |return )"([a-z_]+)"')
    for path in ROOT.rglob("*.py"):
        found |= set(pattern.findall(path.read_text(encoding="utf-8")))
    found |= {m.group(1) for path in ROOT.rglob("*.py")
              for m in re.finditer(r'^\s+code = "([a-z_]+)"$', path.read_text(encoding="utf-8"),
                                   re.M)}
    return found - {"table_error", "store_error", "config_error", "protocol_error",
                    "unknown_message", "bad_payload"}     # bases and malformed bytes: logs only


def test_every_code_written_anywhere_has_words_in_both_languages():
    codes = _codes_in_source() | {protocol.result_code(c) for c in protocol.Result}
    assert {"in_flight", "power_cut", "port_busy", "unsupported_version", "in_doubt_unknown",
            "cycle_link_lost", "not_sent_daemon_down", "lost", "stopped"} <= codes
    for code in sorted(codes):
        keys = [k for k in (f"table.code.{code}", f"table.link.{code}") if lexicon.has(k)]
        assert keys, f"no words for {code!r}"
        for key in keys:
            ja, en = lexicon.t(key, "ja"), lexicon.t(key, "en")
            words_of_its_own = re.sub(r"\{[^}]*\}|[ :(),]", "", en)
            assert ja and en and (ja != en or not words_of_its_own), key


def test_every_command_has_its_words():
    for spec in commands.COMMANDS.values():
        for part in ("label", "running", "help"):
            key = f"table.cmd.{spec.name}.{part}"
            assert lexicon.has(key) and lexicon.t(key, "ja") != lexicon.t(key, "en"), key


@pytest.mark.parametrize("code,values,ja,en", [
    ("point_sticks_mismatch", {"seats": [3]}, "（違う席: 北）", "(wrong: North)"),
    ("port_busy", {"port": "/dev/jantaku/t1", "pid": 812, "program": "minicom"},
     "pid 812 minicom", "in use by another program (pid 812 minicom)"),
    ("not_sent_disconnected", {"table": "t2", "reason_code": "no_answer", "reason_values": {}},
     "卓が応答しません", "the table does not answer"),
    ("nak_refused", {"reason_code": "bad_payload"}, "データが不正", "data is malformed"),
    ("table_error_3f", {}, "0x3F", "Unknown table error code 0x3F"),
])
def test_codes_are_worded_with_their_values(code, values, ja, en):
    assert ja in words.code(code, "ja", values) and en in words.code(code, "en", values)
    assert "{" not in words.code(code, "ja", values) + words.code(code, "en", values)
    assert words.code(code, words.BOTH, values) == f"{words.code(code, 'ja', values)} / " \
                                            f"{words.code(code, 'en', values)}"


def test_events_are_worded_from_their_stored_values():
    row = {"kind": "dice_rolled", "code": "", "data": {"seat": 2, "dice": [3, 5]}}
    assert words.event(row, "ja") == "サイコロ 3 + 5（西）"
    assert words.event(row, "en") == "dice 3 + 5 (West)"
    row = {"kind": "error_raised", "code": "motor_jam", "data": {"detail": 0}}
    assert words.event(row, "en").startswith("error: A motor is jammed")
    row = {"kind": "disconnected", "code": "ascii_answer", "data": {"sample": "OK"}}
    assert "answers in text (OK)" in words.event(row, "en") and "文字で応答" in words.event(row,
                                                                                       "ja")


def test_results_of_done_commands_are_worded():
    cases = [
        ("mode", {"mode": 1, "requested": 4, "pending_mode": 4, "applied_now": False},
         "モード 04 三人標準 を選択しました。次のサイクルから有効です（現在 01 四人標準）"),
        ("check", {"ok": False, "counted": 135, "expected": 136, "missing": [27],
                   "extra": []}, "牌の枚数が違います: 135 / 136枚（足りない牌: 1z、多い牌: なし）"),
        ("reset", {"cleared": ["motor_jam"], "remaining": ["lid_open"]},
         "解除したエラー: モーター"),
    ]
    for name, result, ja in cases:
        assert commands.COMMANDS[name].describe(result, "ja").startswith(ja), name
