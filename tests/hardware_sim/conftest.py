"""Fixtures of the simulator tests."""

import pytest

from tests.support.sim import leak_check


@pytest.fixture()
def no_leaks():
    """Fail a test that leaves threads or pseudo-terminals behind."""
    yield from leak_check()
