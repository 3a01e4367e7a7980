"""The club config file: good files load, bad ones are refused naming the key, the value
and the values allowed, in Japanese and English."""

from pathlib import Path

import pytest

from tablectl.config import ConfigError, load_config

SAMPLE = Path(__file__).parents[2] / "deploy" / "club.toml"


def write(tmp_path, text: str) -> Path:
    p = tmp_path / "c.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_sample_config_loads():
    cfg = load_config(SAMPLE)
    assert [t.id for t in cfg.tables] == ["t1", "t2", "t3", "demo"]
    assert cfg.link.retries == 3 and cfg.link.timeout == 0.25
    assert cfg.table("t2").url.startswith("rfc2217://")
    assert cfg.table("t3").driver == "lcus-relay" and cfg.table("t3").serial.baudrate == 9600
    assert cfg.timezone == "Asia/Tokyo" and cfg.lock_dir == "/run/lock"


def test_relative_paths_are_taken_from_the_files_folder(tmp_path):
    cfg = load_config(write(tmp_path, 'db = "data/j.db"\n[[tables]]\nid = "t1"\nurl = "sim://"\n'))
    assert cfg.db == str(tmp_path / "data" / "j.db")
    assert cfg.log_dir == str(tmp_path / "logs")


def test_serial_settings_are_honoured(tmp_path):
    cfg = load_config(write(tmp_path, 'db = "j.db"\n[[tables]]\nid = "t1"\nurl = "/dev/x"\n'
                            'baudrate = 9600\nparity = "e"\nbytesize = 7\nstopbits = 2\n'
                            'rtscts = true\nxonxoff = false\ndtr = false\nrts = true\n'))
    s = cfg.table("t1").serial
    assert (s.baudrate, s.parity, s.bytesize, s.stopbits, s.rtscts, s.dtr, s.rts) == \
        (9600, "E", 7, 2, True, False, True)
    assert s.pyserial()["parity"] == "E"
    # the old spelling `baud` still works; defaults are the driver's (JP-EX: 115200 8N1)
    cfg = load_config(write(tmp_path, 'db = "j.db"\n[[tables]]\nid = "t1"\nurl = "/dev/x"\n'
                            'baud = 57600\n[[tables]]\nid = "t2"\nurl = "/dev/y"\n'))
    assert cfg.table("t1").serial.baudrate == 57600
    t2 = cfg.table("t2").serial
    assert (t2.baudrate, t2.bytesize, t2.parity, t2.stopbits, t2.dtr) == (115200, 8, "N", 1, None)


T = 'db = "j.db"\n[[tables]]\nid = "t1"\nurl = "/dev/x"\n'


@pytest.mark.parametrize("text,words", [
    ('[[tables]]\nid = "t1"\nurl = "x"\n', "db is missing"),
    ('db = "j.db"\ncolour = 1\n', "unknown setting 'colour'; allowed: db, log_dir"),
    ('db = "j.db"\n[[tables]]\nurl = "x"\n', "id = None is not allowed"),
    ('db = "j.db"\n[[tables]]\nid = "t1"\n', "url is missing"),
    (T + 'baud = "fast"\n', "baud = 'fast' is not allowed; allowed values: 1200, 2400"),
    (T + 'baudrate = 9601\n', "baudrate = 9601 is not allowed; allowed values: 1200"),
    (T + 'parity = "X"\n', 'parity = \'X\' is not allowed; allowed values: "N" (none), "E"'),
    (T + 'bytesize = 9\n', "bytesize = 9 is not allowed; allowed values: 5, 6, 7, 8"),
    (T + 'stopbits = 3\n', "stopbits = 3 is not allowed; allowed values: 1, 1.5, 2"),
    (T + 'rtscts = "yes"\n', "rtscts = 'yes' is not allowed; allowed values: true, false"),
    (T + 'colour = 1\n', "unknown setting 'colour'; allowed: id, url, name, driver, baud"),
    (T + 'driver = "amos-9"\n',
     "there is no driver 'amos-9'; drivers: jpex-link, jpex-panel, lcus-relay"),
    (T + 'driver = "lcus-relay"\nchannel = 9\n', "channel = 9 is not allowed; allowed "
                                                 "values: a whole number 1..8"),
    (T + 'channel = 1\n', "unknown setting 'channel'"),       # a relay setting on a JP-EX table
    ('db = "j.db"\n[[tables]]\nid = "a"\nurl = "x"\n[[tables]]\nid = "a"\nurl = "y"\n',
     "appear more than once"),
    ('db = "j.db"\n[link]\ntimeout = -1\n', "timeout = -1 is not allowed; allowed values: a "
                                            "number of seconds above 0"),
    ('db = "j.db"\n[link]\nretries = 0.5\n', "retries = 0.5 is not allowed; allowed values: "
                                             "a whole number 0..20"),
    ('db = "j.db"\n[link]\nspeed = 1\n', "unknown setting 'speed'; allowed: timeout, retries"),
    ('db = "j.db"\ntimezone = "Mars/Olympus"\n', "timezone = 'Mars/Olympus' is not allowed"),
    ('db = "j.db\n', "is not valid TOML"),
])
def test_bad_config_refused_in_words(tmp_path, text, words):
    p = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert words in e.value.text("en") and str(p) in e.value.text("en")
    ja = e.value.text("ja")
    assert ja != e.value.text("en") and str(p) in ja


def test_db_that_is_a_folder_is_refused_not_a_traceback(tmp_path):
    (tmp_path / "data").mkdir()
    with pytest.raises(ConfigError) as e:
        load_config(write(tmp_path, 'db = "data"\n'))
    assert "is a folder" in e.value.text("en") and "フォルダー" in e.value.text("ja")


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path / "nope.toml")
    assert "does not exist" in e.value.text("en") and "--db" in e.value.text("en")


def test_the_cli_reads_only_the_files_own_settings(tmp_path):
    """The staff CLI needs the store and the time zone: a table entry is not checked
    (and no driver is loaded) when it only reads those."""
    cfg = load_config(write(tmp_path, T + 'driver = "not-installed"\n'), tables=False)
    assert cfg.tables == () and cfg.db == str(tmp_path / "j.db")


@pytest.mark.parametrize("first,second,port", [
    ("/dev/ttyUSB0", "/dev/ttyUSB0", "/dev/ttyUSB0"),
    ("socket://10.0.0.21:4001", "socket://10.0.0.21:4001/", "socket://10.0.0.21:4001"),
    ("rfc2217://Box:4001", "rfc2217://box:4001?timeout=1", "rfc2217://Box:4001"),
    ("sim://floor?mode=1", "sim://floor?mode=4", "sim://floor"),
])
def test_two_tables_on_one_port_are_refused_naming_both(tmp_path, first, second, port):
    p = write(tmp_path, f'db = "j.db"\n[[tables]]\nid = "t2"\nurl = "{first}"\n'
                        f'[[tables]]\nid = "t3"\nurl = "sim://"\n'
                        f'[[tables]]\nid = "t10"\nurl = "{second}"\n')
    with pytest.raises(ConfigError) as e:
        load_config(p)
    en, ja = e.value.text("en"), e.value.text("ja")
    assert e.value.code == "config_shared_port"
    assert "tables t2 and t10 are both on the port" in en and port in en and str(p) in en
    assert "卓 t2 と卓 t10 が同じポート" in ja and port in ja


def test_a_symlink_to_another_tables_device_is_the_same_port(tmp_path):
    dev = tmp_path / "ttyUSB0"
    dev.touch()
    (tmp_path / "t1").symlink_to(dev)
    p = write(tmp_path, f'db = "j.db"\n[[tables]]\nid = "t1"\nurl = "{tmp_path}/t1"\n'
                        f'[[tables]]\nid = "t9"\nurl = "{dev}"\n')
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert f"{tmp_path}/t1 = {dev}" in e.value.text("en")


def test_unnamed_simulated_tables_and_separate_ports_load(tmp_path):
    cfg = load_config(write(
        tmp_path, 'db = "j.db"\n[[tables]]\nid = "a"\nurl = "sim://?mode=1"\n'
                  '[[tables]]\nid = "b"\nurl = "sim://?mode=1"\n'
                  '[[tables]]\nid = "c"\nurl = "socket://h:1"\n'
                  '[[tables]]\nid = "d"\nurl = "socket://h:2"\n'
                  '[[tables]]\nid = "e"\nurl = "/dev/ttyUSB0"\n'
                  '[[tables]]\nid = "f"\nurl = "/dev/ttyUSB1"\n'))
    assert [t.id for t in cfg.tables] == ["a", "b", "c", "d", "e", "f"]
