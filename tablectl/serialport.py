"""Opening a table's port: exclusively, with a lock file, through pyserial or a transport hook.

A device path (``/dev/ttyUSB0``, ``/dev/jantaku/t1``) is opened by one program
at a time. Two locks keep a second program off a port that a table is driven
through (a second daemon, a terminal program, a script polling STATUS):

* a lock file ``<lock_dir>/LCK..<device>`` holding our pid (the UUCP convention
  minicom, picocom and ModemManager-aware tools read); a stale one (its pid
  gone) is taken over;
* pyserial's ``exclusive=True`` (``flock`` on the device), which also stops a
  program that ignores lock files, and the tty's exclusive mode (``TIOCEXCL``),
  which stops any later ``open()`` of the device except by root.

A refusal names the holder's pid and program (:class:`PortError`, reason
``port_busy``). URLs (``socket://``, ``rfc2217://`` ...) go to pyserial's
``serial_for_url``; a scheme registered in the ``jantaku.serial_transports``
entry-point group (a factory ``open(url, **settings)`` returning a pyserial-like
port) is opened by that factory: this is how the simulator plugs in ``sim://``
from outside the product code (as OctoPrint's virtual printer plugs in through
its transport factory hook).
"""

from __future__ import annotations

import errno
import fcntl
import os
import termios
from functools import cache
from typing import Any

import serial

from clubdb import pid_alive

from .errors import TableError
from .settings import SerialSettings

TRANSPORTS_GROUP = "jantaku.serial_transports"


class PortError(TableError):
    """A port that cannot be opened; ``code`` is the reason (``table.link.<code>``)."""

    code = "open_failed"

    @property
    def key(self) -> str:
        return f"table.link.{self.code}"


@cache
def transports() -> dict[str, Any]:
    """Schemes registered by installed packages: ``{scheme: entry point}``."""
    from importlib.metadata import entry_points

    return {ep.name: ep for ep in entry_points(group=TRANSPORTS_GROUP)}


def _scheme(url: str) -> str:
    return url.split("://", 1)[0].lower() if "://" in url else ""


class Port:
    """An open port and the lock file that goes with it; ``close()`` releases both."""

    def __init__(self, raw: Any, lock_file: str | None) -> None:
        self.raw = raw
        self.lock_file = lock_file

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)

    def close(self) -> None:
        try:
            self.raw.close()
        finally:
            if self.lock_file:
                _release(self.lock_file)
                self.lock_file = None


def open_port(url: str, settings: SerialSettings, *, lock_dir: str | None,
              timeout: float = 0.1, write_timeout: float = 2.0) -> Port:
    """Open ``url`` with ``settings``; raises :class:`PortError` in words staff can act on."""
    kwargs = {**settings.pyserial(), "timeout": timeout, "write_timeout": write_timeout}
    scheme = _scheme(url)
    if not scheme:
        return _open_device(url, settings, kwargs, lock_dir)
    factory = transports().get(scheme)
    try:
        raw = factory.load()(url, **kwargs) if factory else serial.serial_for_url(url, **kwargs)
    except (serial.SerialException, OSError, ValueError) as e:
        raise _open_error(url, e) from None
    _lines(raw, settings)
    return Port(raw, None)


def close_quietly(port: Any) -> None:
    """Close ``port`` if there is one; a vanished adapter has nothing left to close, so
    closing it may fail and is let be."""
    if port is None:
        return
    try:
        if hasattr(getattr(port, "raw", None), "cancel_read"):
            port.raw.cancel_read()      # wake a reader out of its wait at once
        port.close()
    except Exception:  # a vanished adapter: nothing left to close
        pass


def _open_device(path: str, settings: SerialSettings, kwargs: dict[str, Any],
                 lock_dir: str | None) -> Port:
    real = os.path.realpath(path)
    if not os.path.exists(real):
        raise PortError(code="port_missing", port=path)
    lock = _take_lock(real, path, lock_dir) if lock_dir else None
    try:
        raw = serial.Serial(real, exclusive=True, **kwargs)
    except (serial.SerialException, OSError, ValueError) as e:
        if lock:
            _release(lock)
        if getattr(e, "errno", None) in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EBUSY):
            raise _busy(path, holder_of(real)) from None
        raise _open_error(path, e) from None
    try:
        # the tty's own exclusive mode: any later open() of the device by a program that
        # ignores lock files and flock fails with EBUSY (root excepted)
        fcntl.ioctl(raw.fileno(), termios.TIOCEXCL)
    except OSError:
        pass
    try:
        _lines(raw, settings)
    except (serial.SerialException, OSError):
        pass  # a pty or an adapter without modem lines: nothing to set
    return Port(raw, lock)


def _lines(raw: Any, settings: SerialSettings) -> None:
    if settings.dtr is not None:
        raw.dtr = settings.dtr
    if settings.rts is not None:
        raw.rts = settings.rts


def _open_error(port: str, e: Exception) -> PortError:
    no = getattr(e, "errno", None)
    if isinstance(e, ValueError):
        return PortError(code="bad_url", port=port)
    if no == errno.ENOENT:
        return PortError(code="port_missing", port=port)
    if no in (errno.EACCES, errno.EPERM):
        return PortError(code="permission", port=port)
    if no == errno.ECONNREFUSED or isinstance(e, ConnectionRefusedError) \
            or "refused" in str(e).lower():
        return PortError(code="refused", port=port)
    if no in (errno.EHOSTUNREACH, errno.ENETUNREACH, errno.ETIMEDOUT) or "timed out" in str(e):
        return PortError(code="unreachable", port=port,
                         errno=errno.errorcode.get(no, "timeout") if no else "timeout")
    return PortError(code="open_failed", port=port,
                     errno=errno.errorcode.get(no, type(e).__name__) if no else type(e).__name__)


def _busy(port: str, holder: tuple[int, str] | None) -> PortError:
    if holder is None:
        return PortError(code="port_busy_unknown", port=port)
    return PortError(code="port_busy", port=port, pid=holder[0], program=holder[1])


# ---------------------------------------------------------------- lock files and holders
def lock_path(device: str, lock_dir: str) -> str:
    """``<lock_dir>/LCK..ttyUSB0`` for ``/dev/ttyUSB0`` (``LCK..pts_7`` for ``/dev/pts/7``)."""
    name = device.removeprefix("/dev/").replace("/", "_")
    return os.path.join(lock_dir, f"LCK..{name}")


def _take_lock(device: str, shown: str, lock_dir: str) -> str | None:
    path = lock_path(device, lock_dir)
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            pid = _lock_pid(path)
            if pid is not None and pid != os.getpid() and pid_alive(pid):
                raise _busy(shown, (pid, _program(pid))) from None
            try:
                os.unlink(path)     # stale: its owner is gone
            except FileNotFoundError:
                pass
            continue
        except OSError:
            return None             # no writable lock folder: the flock still guards the port
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid():10d}\n")
        return path
    raise _busy(shown, None)


def _release(path: str) -> None:
    if _lock_pid(path) == os.getpid():
        try:
            os.unlink(path)
        except OSError:
            pass


def _lock_pid(path: str) -> int | None:
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return int(f.read().strip() or 0) or None
    except (OSError, ValueError):
        return None


def _program(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return "?"


def holder_of(device: str) -> tuple[int, str] | None:
    """The pid and program name of the process holding ``device``: the holder of its
    ``flock`` (``/proc/locks``), else any other process that has it open."""
    return _flock_holder(device) or _opener_of(device)


def _flock_holder(device: str) -> tuple[int, str] | None:
    try:
        st = os.stat(device)
        with open("/proc/locks", encoding="ascii") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    want = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == want:
            pid = int(parts[4])
            if pid != os.getpid():
                return pid, _program(pid)
    return None


def _opener_of(device: str) -> tuple[int, str] | None:
    me = os.getpid()
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return None
    for pid in pids:
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == device:
                    return pid, _program(pid)
            except OSError:
                continue
    return None
