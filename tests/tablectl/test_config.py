"""The club config file: good files load, bad ones are refused naming the key."""

from pathlib import Path

import pytest

from tablectl.config import ConfigError, load_config

SAMPLE = Path(__file__).parents[2] / "deploy" / "club.toml"


def test_sample_config_loads():
    cfg = load_config(SAMPLE)
    assert [t.id for t in cfg.tables] == ["t1", "t2", "demo"]
    assert cfg.link.retries == 3 and cfg.link.timeout == 0.25
    assert cfg.table("t2").url.startswith("rfc2217://")


def test_relative_paths_are_taken_from_the_files_folder(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('db = "data/j.db"\n[[tables]]\nid = "t1"\nurl = "sim://"\n')
    cfg = load_config(p)
    assert cfg.db == str(tmp_path / "data" / "j.db")
    assert cfg.log_dir == str(tmp_path / "logs")


@pytest.mark.parametrize("text,words", [
    ('[[tables]]\nid = "t1"\nurl = "x"\n', "missing `db"),
    ('db = "j.db"\ncolour = 1\n', "unknown key(s) colour"),
    ('db = "j.db"\n[[tables]]\nurl = "x"\n', "id must be"),
    ('db = "j.db"\n[[tables]]\nid = "t1"\n', "missing url"),
    ('db = "j.db"\n[[tables]]\nid = "t1"\nurl = "x"\nbaud = "fast"\n', "baud must be"),
    ('db = "j.db"\n[[tables]]\nid = "a"\nurl = "x"\n[[tables]]\nid = "a"\nurl = "y"\n',
     "appear more than once"),
    ('db = "j.db"\n[link]\ntimeout = -1\n', "positive number"),
    ('db = "j.db"\n[link]\nspeed = 1\n', "unknown [link] setting"),
    ('db = "j.db\n', "not valid TOML"),
])
def test_bad_config_refused_in_words(tmp_path, text, words):
    p = tmp_path / "c.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert words in e.value.message and str(p) in e.value.message


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "nope.toml")
