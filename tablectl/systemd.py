"""The few lines of systemd's notify protocol the daemon needs (no dependency).

systemd passes ``NOTIFY_SOCKET`` (a filesystem path, or ``@name`` for the
abstract namespace) and, with ``WatchdogSec=``, ``WATCHDOG_USEC``. A
datagram ``READY=1`` says start-up is done, ``WATCHDOG=1`` is the keep-alive
ping, ``STOPPING=1`` announces a clean stop. Outside systemd every call is a
no-op.
"""

from __future__ import annotations

import os
import socket


def notify(message: str) -> bool:
    """Send one notify datagram; False when not running under systemd."""
    addr = os.environ.get("NOTIFY_SOCKET")
    if not addr:
        return False
    if addr.startswith("@"):
        addr = "\0" + addr[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
            s.connect(addr)
            s.sendall(message.encode())
    except OSError:
        return False
    return True


def watchdog_interval() -> float | None:
    """Seconds between WATCHDOG=1 pings (half systemd's timeout), or None if no watchdog."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 1e6 / 2
    except ValueError:
        return None
