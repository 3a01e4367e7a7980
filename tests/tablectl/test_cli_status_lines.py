"""``tablectl status``: tables in natural order, and one line per table whatever text a
device sent (a model string with a newline, an escape sequence, a bidi override)."""

import os

from tablectl import cli
from tablectl.store import Journal


def status(capsys, db, lang="en"):
    assert cli.main(["status", "--db", str(db), "--lang", lang]) == 0
    return capsys.readouterr().out.splitlines()


def test_status_lists_tables_in_natural_order(tmp_path, capsys):
    db = tmp_path / "j.db"
    j = Journal(db)
    ids = ["t10", "t2", "T3", "t1", "bar", "t20"]
    j.register_tables([{"id": i, "url": "sim://"} for i in ids])
    j.heartbeat(os.getpid(), started=True)
    lines = status(capsys, db)[1:]
    assert [ln.split(" ", 1)[0] for ln in lines] == ["bar", "t1", "t2", "T3", "t10", "t20"]
    assert cli.main(["status", "--db", str(db), "--json"]) == 0
    assert '"t2"' in (out := capsys.readouterr().out) and out.index('"t2"') < out.index('"t10"')


def test_device_text_stays_on_its_tables_line(tmp_path, capsys):
    db = tmp_path / "j.db"
    j = Journal(db)
    j.register_tables([{"id": "t1", "url": "sim://"}, {"id": "t2", "url": "sim://"}])
    j.update_table("t1", connected=1, mode=1, model="AMOS\nJP-EX\r\n\x1b[2J\u2028X",
                   firmware="1.0\x00\u202e\tbeta")
    j.update_table("t2", connected=1, mode=4, model="AMOS JP-EX COLOR", firmware="2")
    j.heartbeat(os.getpid(), started=True)
    for lang in ("en", "ja", "both"):
        lines = status(capsys, db, lang)
        assert len(lines) == 3, lines               # the daemon's line and one per table
        t1, t2 = lines[1], lines[2]
        assert t1.startswith("t1 ") and t2.startswith("t2 ")
        assert "AMOS JP-EX [2J X" in t1 and "1.0 beta" in t1
        assert not any(ch < " " or ch in "\u2028\u202e\x7f" for ch in "".join(lines))
