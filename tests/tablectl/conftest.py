"""Fixtures of the table-link tests."""

import pytest

from tests.support.tablectl import leak_check


@pytest.fixture()
def no_leaks():
    """Fail a test that leaves threads, open ports or child processes behind."""
    yield from leak_check()
