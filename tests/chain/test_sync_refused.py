"""A batch the head office refuses, over real PostgreSQL: the sync says so in one line and
nothing else reaches stderr, however the server's answers interleave with the rows sent."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from chain import sync
from tests.chain.test_sync import _snapshot, box, club_file  # noqa: F401 (fixtures)


def test_sync_refused_batch_leaves_no_psycopg_warning(box: Path, pg_url: str,  # noqa: F811
                                                      caplog) -> None:
    sync.run(str(box), pg_url, "east")
    before = _snapshot(pg_url, "east")
    with sqlite3.connect(box) as c:  # a damaged time, and a good change in the same batch
        c.execute("UPDATE players SET name = 'renamed' WHERE id = 2")
        c.execute("UPDATE players SET created_at = 'yesterday-ish' WHERE id = 1")
    caplog.set_level(logging.WARNING, logger="psycopg")
    for _ in range(20):  # the answers' timing varies: every try must end cleanly
        with pytest.raises(sync.SyncError) as refused:
            sync.run(str(box), pg_url, "east")
        assert "yesterday-ish" in refused.value.message
    assert [r.getMessage() for r in caplog.records if r.name.startswith("psycopg")] == []
    assert _snapshot(pg_url, "east") == before
