"""The ground under every package of ours: what each would otherwise define again.

:mod:`groundwork.errors` is the one base of the errors raised on purpose with a
machine-readable code and the values their words name; :mod:`groundwork.options` the
one reader of checked options (a section of a TOML file, each option's kind and bounds).
It imports nothing: ``scoring``, ``tablectl``, ``club`` and ``chain`` all stand on it.
"""
