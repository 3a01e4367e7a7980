"""Every refusal the web and the club's domain give is in the catalogue, in both languages,
and worded in the caller's language."""

from __future__ import annotations

import re

import lexicon
from tests.support.web_server import ROOT

SOURCES = (ROOT / "web", ROOT / "club", ROOT / "chain")
RAISED = re.compile(r"\b(?:UserError|Refused|Conflict|NotFound)\(\s*\"([^\"]+)\"")
ACCESS = re.compile(r"\bAccessRefused\(\s*\d+,\s*\"(\w+)\"")
FIELD = re.compile(r"\brefuse\(\s*\"(\w+)\"")


def raised_keys() -> set[str]:
    keys = set()
    for path in (p for source in SOURCES for p in source.rglob("*.py")):
        if path.name in ("floor.py", "readings.py"):
            continue  # the table daemon's side words itself
        text = path.read_text(encoding="utf-8")
        keys |= set(RAISED.findall(text))
        keys |= {f"access.{c}" for c in ACCESS.findall(text)}
        keys |= {f"field.{c}" for c in FIELD.findall(text)}
    return keys


def test_every_refusal_of_the_web_is_a_catalogue_entry_in_both_languages():
    keys = raised_keys()
    assert len(keys) > 80
    missing = sorted(k for k in keys if not lexicon.has(k))
    assert missing == []
    for k in keys:
        ja, en = lexicon.entries()[k]
        assert ja != en or k.startswith("http."), k  # really translated


def test_a_refusal_reads_in_the_callers_language(client, t1):
    from tests.support.web import start

    start(client, t1)
    body = {"event": {"event": "draw", "tenpai": [9]}, "expected_seq": 1,
            "idempotency_key": "k" * 12}
    en = client.post("/api/tables/t1/hands", headers=t1, json=body).get_json()["error"]
    ja = client.post("/api/tables/t1/hands", headers={**t1, "Accept-Language": "ja"},
                     json=body).get_json()["error"]
    assert en["message"] == "event.tenpai[0]: 9 is out of range; give 0 to 3"
    assert ja["message"] == "event.tenpai[0]: 9 は範囲外です。0〜3にしてください"
    assert en["code"] == ja["code"] == "invalid_field"


def test_no_words_are_written_twice_in_the_code():
    """The Japanese/English pairs live in the catalogue, not in ``words(ja, en)`` calls."""
    pair = re.compile(r"""\bwords\(\s*(["'])[^"']*\1\s*,\s*["']""")
    assert pair.search('say(words("卓がありません", "no such table"))')     # the check bites
    assert not pair.search('words("backup.done", path=p)')                 # a catalogue key
    found = [f"{f.relative_to(ROOT)}:{n}"
             for f in sorted(p for source in SOURCES for p in source.rglob("*.py"))
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if pair.search(line)]
    assert found == []
