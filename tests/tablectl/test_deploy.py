"""deploy/: the tablectl unit runs what a venv install provides, waits for the network,
may write its lock files; the udev rules keep ModemManager off the adapters and give the
tables the stable names club.toml uses."""

import re
import shlex
from pathlib import Path

from tablectl import cli
from tablectl.config import load_config

ROOT = Path(__file__).parents[2]
DEPLOY = ROOT / "deploy"
VENV = "/opt/jantaku/venv"
SRC = "/opt/jantaku/src"


def unit(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith(("#", "[")) and "=" in line:
            k, v = line.split("=", 1)
            out.setdefault(k, []).append(v)
    return out


def test_tablectl_unit_runs_the_venvs_console_script():
    u = unit("tablectl.service")
    argv = shlex.split(u["ExecStart"][0])
    assert argv[0] == f"{VENV}/bin/tablectl"               # what pip install puts there
    args = cli.build_parser().parse_args(argv[1:])
    assert args.command == "serve" and args.config == "/etc/jantaku/club.toml"
    readme = (DEPLOY / "README.md").read_text(encoding="utf-8")
    assert f"python3 -m venv {VENV}" in readme and f"{VENV}/bin/pip install {SRC}" in readme


def test_web_unit_gives_the_app_the_clubs_line_channel():
    """The web app links members' LINE with the channel of club.toml's [notify]."""
    from web import cli as web_cli

    argv = shlex.split(unit("jantaku-web.service")["ExecStart"][0])
    args = web_cli.build_parser().parse_args(argv[3:])
    assert args.command == "serve" and args.config == "/etc/jantaku/club.toml"
    assert 'line_account = "@' in (DEPLOY / "club.toml").read_text(encoding="utf-8")


def test_tablectl_unit_waits_for_the_network_and_may_write_its_lock_files():
    u = unit("tablectl.service")
    assert u["After"] == ["network-online.target"] and u["Wants"] == ["network-online.target"]
    assert u["Type"] == ["notify"] and u["WatchdogSec"] == ["20"]
    assert "dialout" in u["SupplementaryGroups"][0]
    writable = u["ReadWritePaths"][0].split()
    sample = load_config(DEPLOY / "club.toml")
    assert sample.lock_dir in writable and str(Path(sample.db).parent) in writable


def test_documentation_links_point_at_files_the_install_has():
    for name in ("tablectl.service", "jantaku-export.service", "jantaku-web.service",
                 "jantaku-backup.service"):
        for link in " ".join(unit(name)["Documentation"]).split():
            assert link.startswith(f"file://{SRC}/"), link
            assert (ROOT / link.removeprefix(f"file://{SRC}/")).is_file(), link


RULE = re.compile(r'^(?:[A-Z_]+(?:\{[^}]+\})?(?:==|!=|\+=|=)"[^"]*"(?:, )?)+$')


def test_udev_rules_keep_modemmanager_off_and_name_the_tables():
    text = (DEPLOY / "70-jantaku-tables.rules").read_text(encoding="utf-8")
    rules = [ln for ln in text.splitlines() if ln and not ln.startswith("#")]
    for ln in rules:
        assert RULE.match(ln), f"not a udev rule: {ln}"
    ignored = {(m.group(1), m.group(2)) for ln in rules if 'ID_MM_DEVICE_IGNORE}="1"' in ln
               for m in [re.search(r'idVendor}=="(\w+)", ATTRS\{idProduct}=="(\w+)"', ln)] if m}
    assert ("1a86", "7523") in ignored                     # CH340: the LCUS relay boards
    assert {("0403", "6001"), ("10c4", "ea60"), ("067b", "2303")} <= ignored
    # the bridge on an Uno or a Mega 2560 (their own 16U2 USB chip: /dev/ttyACM*)
    assert {("2341", "0043"), ("2341", "0042"), ("2a03", "0043"), ("2a03", "0042")} <= ignored
    names = set(re.findall(r'SYMLINK\+="jantaku/([\w.-]+)"', text))
    sample = load_config(DEPLOY / "club.toml")
    for t in sample.tables:
        if t.url.startswith("/dev/jantaku/"):
            assert t.url.removeprefix("/dev/jantaku/") in names, t.id
    # a CH340 without serial number is named by its USB port
    assert any("ID_PATH}==" in ln and "jantaku/t3" in ln for ln in rules)
    assert any('SYMLINK+="jantaku/by-path/$env{ID_PATH}"' in ln for ln in rules)
    assert text.index("ID_MM_DEVICE_IGNORE") < text.index('LABEL="jantaku_end"')
