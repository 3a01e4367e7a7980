"""deploy/: every file the sample club.toml names in its comments is one the install has."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_club_toml_names_only_deploy_files_that_exist():
    text = (ROOT / "deploy" / "club.toml").read_text(encoding="utf-8")
    named = set(re.findall(r"deploy/([\w.-]+\.\w+)", text))
    assert "70-jantaku-tables.rules" in named          # the udev rules that name /dev/jantaku/
    for name in named:
        assert (ROOT / "deploy" / name).is_file(), f"club.toml names deploy/{name}"
