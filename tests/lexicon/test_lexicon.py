"""The one catalogue of words: every entry in both languages, keys unique, values filled."""

from __future__ import annotations

import pytest

import lexicon


def test_every_entry_has_japanese_and_english():
    assert lexicon.entries()
    for key, (ja, en) in lexicon.entries().items():
        assert ja.strip() and en.strip(), key


def test_values_are_filled_and_an_unknown_key_is_shown_as_itself():
    assert lexicon.t("tablet.ron", "ja") == "ロン" and lexicon.t("tablet.ron", "en") == "Ron"
    assert lexicon.t("lb.range_note", "en", closing="06:00", tz="Asia/Tokyo") == (
        "A club day ends at closing time, 06:00 (Asia/Tokyo)")
    assert lexicon.t("lb.range_note", "ja", closing="06:00") == (
        "営業日は閉店時刻 06:00（{tz}）で区切ります")
    assert lexicon.t("no.such.key", "en") == "no.such.key"
    assert lexicon.both("tablet.ron") == "ロン / Ron" and lexicon.both("ok") == "OK"


def test_a_key_in_two_files_is_refused(tmp_path, monkeypatch):
    (tmp_path / "a.toml").write_text('"x.y" = ["あ", "a"]\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('"x.y" = ["い", "b"]\n', encoding="utf-8")
    monkeypatch.setattr(lexicon, "CATALOGUE", tmp_path)
    lexicon.entries.cache_clear()
    try:
        with pytest.raises(ValueError, match="already in the catalogue"):
            lexicon.entries()
    finally:
        monkeypatch.undo()
        lexicon.entries.cache_clear()


def test_an_entry_needs_both_languages(tmp_path, monkeypatch):
    (tmp_path / "a.toml").write_text('"x.y" = ["あ"]\n', encoding="utf-8")
    monkeypatch.setattr(lexicon, "CATALOGUE", tmp_path)
    lexicon.entries.cache_clear()
    try:
        with pytest.raises(ValueError, match="needs"):
            lexicon.entries()
    finally:
        monkeypatch.undo()
        lexicon.entries.cache_clear()
