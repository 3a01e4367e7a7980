"""Jantaku's test suite: one folder per package (``scoring/``, ``tablectl/``,
``hardware_sim/``, ``web/``, ``clubdb/``, ``lexicon/``) and the helpers they share in
``support/``.

The tests use real parts: a real SQLite file, the table simulator on a real
pseudo-terminal, a daemon subprocess, real Chromium for the browser tests.

Loaded-machine mode: ``JANTAKU_TEST_LOAD=N python -m pytest`` runs N CPU burners at
the tests' own priority for the whole session (``conftest.py``), so that a test racing
a thread or process it does not wait for fails here and not at random. For example,
``JANTAKU_TEST_LOAD=2 python -m pytest tests/tablectl tests/hardware_sim``. No burner
outlives pytest, even on Ctrl-C or kill -9.
"""
