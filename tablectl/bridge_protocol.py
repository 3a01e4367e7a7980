"""The bridge's line protocol, defined once (``docs/bridge.md``).

The firmware includes ``firmware/bridge/bridge_protocol.h``, which this module writes
(``python3 tablectl/bridge_protocol.py > firmware/bridge/bridge_protocol.h``; the
firmware's Makefile runs it), the Python model of the bridge and the host's board
class import the same names. Change a limit here and every side follows.

This file imports nothing of the project, so the firmware build can run it alone.
"""

from __future__ import annotations

import sys

FIRMWARE_VERSION = "3.0"
PROTOCOL = 3

PRESS_MAX_MS = 10_000           # the longest press or hold the bridge accepts
WD_DEFAULT_MS = 1_500           # the watchdog time at start
WD_MIN_MS, WD_MAX_MS = 100, 60_000
POWER_HOLD_MS = 30_000          # power held off this long after the host's last line
LINE_MAX = 63                   # characters of one line, its checksum included
RX_RING = 64                    # the receive ring's slots (bytes beyond are lost)
ANSWER_MAX = 160                # characters of one answer, its checksum included
SAMPLES = 16                    # ADC readings summed per seat

VERBS: tuple[str, ...]
VERBS = ("PING", "PRESS", "HOLD", "RELEASE", "STICKS", "VERSION", "WATCHDOG", "RESET",
         "POWER", "RECORD")

# The sense inputs: SENSES optocouplers across the switches of relay channels 1..SENSES,
# and the table's power. RECORD keeps their edges, each timed by the bridge's own clock.
SENSES = 4
SENSE_DEBOUNCE_MS = 10          # a level must hold this long to count (switches bounce)
RECORD_MAX = 64                 # edges the recording keeps; later ones set its overflow flag
RECORD_PER_READ = 5             # edges in one RECORD READ answer
SENSE_POWER = "P"               # the power input's name in an edge; the switches are 1..4

# ERR codes; a line refused with any of them did nothing.
REFUSALS: tuple[str, ...]
REFUSALS = ("ARGS", "CHANNEL", "RANGE", "UNKNOWN", "LONG", "ID", "CHECKSUM", "BYTE",
            "OVERFLOW")
REFUSALS += ("BUSY",)

# The latched outcome of the last numbered press or hold.
OUTCOMES = ("RUNNING", "DONE", "CUT", "RELEASED")

# Why the chip last started, as the READY banner says it (from the MCU status register).
RESET_CAUSES = ("POWERON", "EXTERNAL", "BROWNOUT", "WATCHDOG", "UNKNOWN")

# The on-board script (SCRIPT NEW|ADD <steps>, RUN <count>, ABORT): at most SCRIPT_STEPS
# steps, a wait or a press of at most SCRIPT_WAIT_MAX_MS, a group repeated 1..SCRIPT_REPEAT_MAX
# times. Its latched outcome, as PING and a REPEAT of RUN say it.
SCRIPT_STEPS = 32
SCRIPT_WAIT_MAX_MS = 60_000
SCRIPT_REPEAT_MAX = 99
SCRIPT_OUTCOMES = ("RUNNING", "DONE", "ABORTED", "CUT")
VERBS += ("SCRIPT", "RUN", "ABORT")


def checksum(body: str | bytes) -> str:
    """The two hex digits after ``*``: the XOR of every byte before the ``*``."""
    data = body.encode("latin-1") if isinstance(body, str) else body
    x = 0
    for b in data:
        x ^= b
    return f"{x:02X}"


def framed(body: str) -> str:
    """``body`` with its checksum, as the host sends a numbered line."""
    return f"{body}*{checksum(body)}"


def unframe(line: str) -> tuple[str, bool | None]:
    """Split a line into its body and whether its checksum agrees (None: it has none)."""
    at = line.rfind("*")
    if at < 0:
        return line, None
    body, given = line[:at], line[at + 1:]
    return body, len(given) == 2 and given.upper() == checksum(body)


def script_lines(steps: list[str], id_digits: int = 5) -> list[str]:
    """The ``SCRIPT NEW`` / ``SCRIPT ADD`` lines that load ``steps``, as few as fit: each
    line, numbered with an id of ``id_digits`` and framed, stays within LINE_MAX."""
    room = LINE_MAX - id_digits - 1 - len("*HH")
    lines: list[str] = []
    for step in steps:
        head = "SCRIPT ADD" if lines else "SCRIPT NEW"
        if lines and len(lines[-1]) + 1 + len(step) <= room:
            lines[-1] += " " + step
        elif len(head) + 1 + len(step) <= room:
            lines.append(f"{head} {step}")
        else:
            raise ValueError(f"a script step longer than a line: {step!r}")
    return lines


def c_header() -> str:
    """The C header the firmware includes: every constant above, once."""
    lines = [
        "/* Written by tablectl/bridge_protocol.py: do not edit; change the Python file.",
        " */",
        "#ifndef BRIDGE_PROTOCOL_H",
        "#define BRIDGE_PROTOCOL_H",
        f'#define FIRMWARE_VERSION "{FIRMWARE_VERSION}"',
        f"#define PROTOCOL {PROTOCOL}",
        f'#define PROTOCOL_S "{PROTOCOL}"',
    ]
    for name in ("PRESS_MAX_MS", "POWER_HOLD_MS", "WD_DEFAULT_MS", "WD_MIN_MS", "WD_MAX_MS",
                 "LINE_MAX", "RX_RING", "ANSWER_MAX", "SAMPLES", "SCRIPT_STEPS",
                 "SCRIPT_WAIT_MAX_MS", "SCRIPT_REPEAT_MAX"):
        value = globals()[name]
        lines.append(f"#define {name} {value}")
        lines.append(f'#define {name}_S "{value}"')
    for name in ("SENSES", "SENSE_DEBOUNCE_MS", "RECORD_MAX", "RECORD_PER_READ"):
        lines.append(f"#define {name} {globals()[name]}")
        lines.append(f'#define {name}_S "{globals()[name]}"')
    lines.append(f'#define VERBS_S "{" ".join(VERBS)}"')
    for i, name in enumerate(OUTCOMES, start=1):
        lines.append(f"#define OUTCOME_{name} {i}")
    for i, name in enumerate(SCRIPT_OUTCOMES, start=1):
        lines.append(f"#define SCRIPT_{name} {i}")
    # the words of each state, numbered from 1 as above, for the answers
    lines.append(f'#define OUTCOMES_S "{" ".join(OUTCOMES)}"')
    lines.append(f'#define SCRIPT_OUTCOMES_S "{" ".join(SCRIPT_OUTCOMES)}"')
    lines.append("#endif")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(c_header())
