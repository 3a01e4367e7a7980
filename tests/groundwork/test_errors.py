"""One coded-error base: every package's error raised on purpose is a ``CodedError``,
with its code (the class's, or one given) and the values its words name."""

from __future__ import annotations

import pytest

from chain.sync import SyncError
from club.errors import NotFound, UserError
from club.export import ExportError
from groundwork.errors import CodedError
from scoring.errors import InvalidTiles, ScoringError
from tablectl.errors import TableError, UnknownMessage
from tablectl.store import UnknownCommand


@pytest.mark.parametrize("cls", [ScoringError, TableError, UserError, SyncError, ExportError])
def test_every_package_error_is_a_coded_error(cls):
    assert issubclass(cls, CodedError)


def test_the_code_is_the_class_s_unless_one_is_given_and_the_values_are_kept():
    assert InvalidTiles("bad tile", tile="0z").code == "invalid_tiles"
    assert InvalidTiles("bad tile", tile="0z").values == {"tile": "0z"}
    assert TableError("x", code="port_busy", pid=7).code == "port_busy"
    assert NotFound("player.not_found", id=3).code == "not_found"
    assert UserError("x", code="gone").code == "gone"
    e = SyncError("sync.err.no_url")
    assert e.code == "sync_refused" and e.values == {} and e.status == 2


def test_tablectl_has_one_class_of_each_name():
    assert UnknownCommand.code == "unknown_command" and UnknownMessage.code == "unknown_message"
    assert not issubclass(UnknownCommand, UnknownMessage)
