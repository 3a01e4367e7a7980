"""The staff commands: one row each, used by the store, the daemon, the CLI and the console.

A row says what a command is called, which arguments it takes and how they are
checked (in the store's form, and from what a person types or picks), how long
a caller waits for it, whether the console offers it, what it may wait behind,
and its words: what staff asked for (``table.cmd.<name>.label``), what is going
on while it runs (``.running``) and, once done, what the table answered
(:func:`describe`). The store refuses what a row refuses; the CLI builds one
subcommand per row; a driver lists the rows it can carry out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import words
from .errors import TableError
from .modes import MODES, SEATS, mode_by_name


class CommandError(TableError):
    """A request refused before anything is written (unknown command, bad arguments)."""

    code = "bad_args"


@dataclass(frozen=True)
class Arg:
    """One argument: its name in the store, how a person gives it, and its checks."""

    name: str
    check: Callable[[Any], bool]          # the store's form (JSON value) is valid
    parse: Callable[[Any], Any]           # from what a person typed or picked
    required: bool
    cli: str                              # ``MODE`` (positional) or ``--seat``
    help: str


def _mode_ok(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(MODES)


def parse_mode(text: object) -> int:
    """A mode from a number (``4``, ``04``) or a name; :class:`UnknownMode` otherwise."""
    return mode_by_name(text).number


def _seat_ok(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < SEATS


_SEAT_NAMES = {"e": 0, "east": 0, "東": 0, "s": 1, "south": 1, "南": 1,
               "w": 2, "west": 2, "西": 2, "n": 3, "north": 3, "北": 3}


def parse_seat(text: object) -> int:
    """A seat as people say it: 1-4 (East=1) or East/South/West/North, E/S/W/N, 東南西北."""
    s = str(text).strip().casefold()
    if s.isascii() and s.isdigit() and 1 <= int(s) <= SEATS:
        return int(s) - 1
    if s in _SEAT_NAMES:
        return _SEAT_NAMES[s]
    raise CommandError(code="bad_seat_arg", given=str(text))


MAX_STICKS = 1_000_000
"""The most one drawer's sticks can be worth (far above any starting total)."""


def _sticks_ok(v: object) -> bool:
    return isinstance(v, list) and len(v) == SEATS and all(
        p is None or (isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= MAX_STICKS)
        for p in v)


def parse_sticks(text: object) -> list[Any]:
    """Drawer totals as people give them: a mode (``sanma``: its playing seats hold its
    starting sticks, the others none), four totals (``35000,35000,35000,none``), or the
    list itself."""
    if isinstance(text, list):
        return text
    s = str(text).strip()
    if "," not in s:
        return mode_by_name(s).sticks()
    out: list[int | None] = []
    for part in s.split(","):
        p = part.strip().casefold()
        if p in ("none", "-", "—", ""):
            out.append(None)
        elif p.isascii() and p.isdigit():
            out.append(int(p))
        else:
            raise CommandError(code="bad_sticks_arg", given=s)
    if not _sticks_ok(out):
        raise CommandError(code="bad_sticks_arg", given=s)
    return out


MODE_ARG = Arg("mode", _mode_ok, parse_mode, True, "MODE",
               "number (04) or name (sanma, yonma, yonma-hana, check, 100, 64 ...)")
STICKS_ARG = Arg("points", _sticks_ok, parse_sticks, True, "STICKS",
                 "a mode (sanma: its seats get its starting sticks) or four totals "
                 "East,South,West,North (35000,35000,35000,none)")
SEAT_ARG = Arg("seat", _seat_ok, parse_seat, False, "--seat",
               "the dealer's seat: 1-4 or east/south/west/north (default: the last dealer)")


def _number_ok(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v < len(MODES)


def parse_number(text: object) -> int:
    """A game number as the table's display shows it (``05``, ``5``)."""
    s = str(text).strip()
    if s.isascii() and s.isdigit() and int(s) < len(MODES):
        return int(s)
    raise CommandError(code="bad_number_arg", given=s, last=f"{len(MODES) - 1:02d}")


def parse_yes(text: object) -> bool:
    """A confirmation: ``in``, ``yes``, ``ok`` (the CLI's ``--sticks in``)."""
    if text is True or str(text).strip().casefold() in ("in", "yes", "ok", "true", "1"):
        return True
    raise CommandError(code="bad_confirm_arg", given=str(text))


# A table driven at its panel (jpex-panel) cannot read its display or the drawers:
# staff give the number they see, and confirm that the new game's sticks are in.
FROM_ARG = Arg("from", _number_ok, parse_number, False, "--from",
               "the game number the table's display shows now (00-08)")
STICKS_IN_ARG = Arg("sticks", lambda v: v is True, parse_yes, False, "--sticks",
                    "'in': the new game's point sticks are in the drawers")
SEEN_ARG = Arg("seen", _number_ok, parse_number, False, "--seen",
               "the game number the table's display shows now (00-08)")


@dataclass(frozen=True)
class StaffCommand:
    """One staff command (see the module docstring)."""

    name: str
    describe_result: Callable[[dict[str, Any], str], str]
    args: tuple[Arg, ...] = ()
    wait: float = 20.0
    console: bool = True
    waits_behind: tuple[str, ...] = ()
    """Commands in flight this one waits behind as pending instead of being refused."""

    def label(self, lang: str) -> str:
        return words.say(f"table.cmd.{self.name}.label", lang)

    def running(self, lang: str) -> str:
        return words.say(f"table.cmd.{self.name}.running", lang)

    def help(self) -> str:
        return words.say(f"table.cmd.{self.name}.help", words.BOTH)

    def check(self, args: dict[str, Any] | None) -> dict[str, Any]:
        """The arguments in the store's form, checked; :class:`CommandError` otherwise."""
        args = dict(args or {})
        known = {a.name for a in self.args}
        extra = sorted(set(args) - known)
        if extra:
            raise CommandError(command=self.name, names=", ".join(extra))
        for a in self.args:
            if a.name not in args:
                if a.required:
                    raise CommandError(command=self.name, names=f"{a.name} ({a.help})")
                continue
            if not a.check(args[a.name]):
                raise CommandError(command=self.name,
                                   names=f"{a.name}={args[a.name]!r} ({a.help})")
        return args

    def from_person(self, values: dict[str, Any]) -> dict[str, Any]:
        """Arguments from what a person typed or picked (CLI words, form fields)."""
        out = {}
        for a in self.args:
            v = values.get(a.name)
            if v is None or (isinstance(v, str) and not v.strip()):
                continue
            out[a.name] = a.parse(v)
        return self.check(out)

    def describe(self, result: dict[str, Any] | None, lang: str) -> str:
        """The table's answer in words (a done command's result)."""
        if lang == words.BOTH:
            return words.in_both(lambda one: self.describe(result, one), lang)
        try:
            return self.describe_result(result or {}, lang)
        except (KeyError, TypeError, ValueError, IndexError):
            return words.say("table.done.generic", lang)


# --------------------------------------------------------------------------- result words
def _status(r: dict[str, Any], lang: str) -> str:
    return words.say("table.done.status", lang, mode=words.mode(r.get("mode"), lang),
                 cycle=words.say(f"table.cycle.{r.get('cycle_state')}", lang),
                 lid=words.say(f"table.lid.{r.get('lid')}", lang),
                 errors=words.listing((words.code(e, lang) for e in r.get("errors") or []), lang))


def _mode(r: dict[str, Any], lang: str) -> str:
    if r.get("stage") == "sticks":
        return words.say("table.done.mode.sticks", lang, mode=words.mode(r["requested"], lang))
    if "steps" in r and r.get("confirmed"):     # at its panel, and the camera saw it
        return words.say("table.done.mode.panel_seen", lang, start=words.mode(r["from"], lang),
                     mode=words.mode(r["mode"], lang), steps=r["steps"],
                     number=f"{r['mode']:02d}", corrections=r.get("corrections", 0))
    if "steps" in r:        # a table driven at its panel: what was pressed, unconfirmed
        return words.say("table.done.mode.panel", lang, start=words.mode(r["from"], lang),
                     mode=words.mode(r["mode"], lang), steps=r["steps"], number=f"{r['mode']:02d}")
    if r.get("applied_now"):
        return words.say("table.done.mode.now", lang, mode=words.mode(r["mode"], lang))
    return words.say("table.done.mode.next", lang, mode=words.mode(r["requested"], lang),
                 current=words.mode(r["mode"], lang))


def _cycle(r: dict[str, Any], lang: str) -> str:
    if "pressed_ms" in r:
        return words.say("table.done.cycle.pressed", lang, ms=r["pressed_ms"])
    if r.get("mode") == 0:
        return words.say("table.done.cycle.check", lang, counted=r.get("counted", "?"))
    text = words.say("table.done.cycle", lang, mode=words.mode(r.get("mode"), lang))
    if r.get("walls_only"):
        text += words.say("table.list_sep", lang) + words.say("table.done.cycle.walls_only", lang)
    return text


def _dice(r: dict[str, Any], lang: str) -> str:
    d1, d2 = r["dice"]
    return words.say("table.done.dice", lang, d1=d1, d2=d2, total=d1 + d2,
                 seat=words.seat(r["seat"], lang))


def _deal(r: dict[str, Any], lang: str) -> str:
    values = {"seat": words.seat(r["dealer"], lang), "total": sum(r["dice"])}
    if r.get("walls_only"):
        return words.say("table.done.deal.walls_only", lang, **values)
    hands = words.listing((words.say("table.done.deal.hand", lang, seat=words.seat(i, lang),
                                     count=n)
                       for i, n in enumerate(r["hands"]) if n), lang)
    return words.say("table.done.deal", lang, hands=hands, **values)


def _tiles(codes: list[int], lang: str) -> str:
    # the protocol is only loaded when a check result is shown: a staff command's
    # start-up stays light (benchmarks/bench_cli_start.py)
    from .protocol.tiles import tile_name

    return " ".join(tile_name(t) for t in codes) if codes else words.say("table.none", lang)


def _check(r: dict[str, Any], lang: str) -> str:
    if r["ok"]:
        return words.say("table.done.check.ok", lang, counted=r["counted"], expected=r["expected"])
    return words.say("table.done.check.wrong", lang, counted=r["counted"], expected=r["expected"],
                 missing=_tiles(r["missing"], lang), extra=_tiles(r["extra"], lang))


def _points(r: dict[str, Any], lang: str) -> str:
    seats = words.listing((words.say("table.done.points.seat", lang, seat=words.seat(i, lang),
                             total=words.say("table.points_n", lang, total=f"{p:,}"))
                       for i, p in enumerate(r["points"])
                       if p is not None), lang)
    return words.say("table.done.points", lang, seats=seats)


def _sticks(r: dict[str, Any], lang: str) -> str:
    seats = words.listing((words.say("table.done.points.seat", lang, seat=words.seat(i, lang),
                             total=words.say("table.none", lang) if p is None
                             else words.say("table.points_n", lang, total=f"{p:,}"))
                       for i, p in enumerate(r["points"])), lang)
    return words.say("table.done.sim-sticks", lang, seats=seats)


def _reset(r: dict[str, Any], lang: str) -> str:
    text = words.say("table.done.reset", lang,
                 cleared=words.listing((words.code(c, lang) for c in r["cleared"]), lang))
    if r["remaining"]:
        text += words.say("table.done.reset.remaining", lang, remaining=words.listing(
            (words.code(c, lang) for c in r["remaining"]), lang))
    return text


def _calibrated(r: dict[str, Any], lang: str) -> list[str]:
    """The end of a calibration: where the table was left, the timings it suggests."""
    parts = []
    if r.get("home") is not None:
        back = r.get("back")
        parts.append(words.say("table.done.calibrate.home" if back == r["home"]
                           else "table.done.calibrate.home_unseen", lang,
                           home=f"{r['home']:02d}"))
    now = (r.get("timings") or {}).get("press_ms")
    ms = (r.get("suggested") or {}).get("press_ms")
    if ms is not None and now is not None:
        parts.append(words.say("table.done.calibrate.longer" if ms > now
                           else "table.done.calibrate.shorter", lang, ms=ms, now=now))
    return parts


def _calibrate(r: dict[str, Any], lang: str) -> str:
    parts = []
    if r.get("match") is False:
        parts.append(words.say("table.done.calibrate.mismatch", lang, seen=f"{r['seen']:02d}",
                           expected=f"{r['expected']:02d}"))
    if r.get("complete"):
        parts.append(words.say("table.done.calibrate.complete", lang,
                           count=len(r.get("mismatches") or [])))
        parts.extend(_calibrated(r, lang))
    else:
        parts.append(words.say(f"table.done.calibrate.{r['switch']}", lang, seen=f"{r['seen']:02d}",
                           next=f"{r['next']:02d}"))
    text = parts[0]
    for more in parts[1:]:  # Japanese sentences run on; English ones take a space
        text = words.say("table.two_sentences", lang, first=text, second=more)
    return text


def _dealt(r: dict[str, Any], lang: str) -> str:
    return words.say("table.done.dealt", lang, cycle_no=r["cycle_no"],
                 mode=words.mode(r["mode"], lang), walls=len(r["walls"]),
                 seat=words.seat(r["dealer"], lang))


COMMANDS: dict[str, StaffCommand] = {c.name: c for c in (
    StaffCommand("status", _status),
    StaffCommand("mode", _mode, (MODE_ARG, FROM_ARG, STICKS_IN_ARG), waits_behind=("cycle",)),
    StaffCommand("cycle", _cycle, wait=150.0),
    StaffCommand("dice", _dice, (SEAT_ARG,)),
    StaffCommand("deal", _deal, wait=60.0),
    StaffCommand("check", _check),
    StaffCommand("points", _points),
    StaffCommand("reset", _reset),
    StaffCommand("dealt", _dealt, console=False),
    # A table driven at its panel: step its number once while staff read the display.
    StaffCommand("calibrate", _calibrate, (SEEN_ARG,), wait=60.0, console=False),
    # A simulated table only: what staff do by hand at a real one (put the sticks in).
    StaffCommand("sim-sticks", _sticks, (STICKS_ARG,), wait=10.0, console=False),
)}


def get(name: str) -> StaffCommand:
    """The row of ``name``; :class:`CommandError` (``unknown_command``) listing them all."""
    spec = COMMANDS.get(name)
    if spec is None:
        raise CommandError(code="unknown_command", command=name, choices=", ".join(COMMANDS))
    return spec


def console_commands() -> tuple[str, ...]:
    """The commands the staff console offers."""
    return tuple(n for n, c in COMMANDS.items() if c.console)


def describe(row: dict[str, Any], lang: str, tz: str = "Asia/Tokyo") -> str:
    """A journal row in words, whatever its status."""
    if lang == words.BOTH:
        return words.in_both(lambda one: describe(row, one, tz), lang)
    spec = COMMANDS.get(row["command"])
    name = spec.label(lang) if spec else row["command"]
    status = row["status"]
    if status == "done":
        return spec.describe(row.get("result"), lang) if spec else words.say("table.done.generic",
                                                                          lang)
    if status == "queued":
        if row.get("waits_for") and spec and spec.waits_behind:
            return words.say("table.wait.pending", lang, id=row["id"], command=name,
                         blocker=COMMANDS[spec.waits_behind[0]].label(lang))
        return words.say("table.wait.queued", lang, id=row["id"], command=name)
    if status == "sending":
        return words.say("table.wait.sending", lang, id=row["id"], command=name)
    if row.get("error_values") is None and row.get("error_message"):
        return str(row["error_message"])  # written by an older daemon, without codes
    return words.code(row.get("error_code"), lang, row.get("error_values"))
