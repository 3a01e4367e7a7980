"""The print worker: takes the queue's jobs in order and prints them
(``python -m club.printing --db FILE --config club.toml``; systemd
``deploy/jantaku-print.service``).

For each job: mark it ``printing``, make its sheet from the club file, write the sheet's
ESC/POS bytes into python-escpos's ``Dummy`` printer, open the real printer, send the
bytes in one piece, close, mark the job ``done``. A printer that cannot be reached or
stops taking bytes leaves the job ``queued``, tried again after a backoff that doubles
up to a ceiling (the jobs behind it wait: receipts come out in the order they were
asked for). A job whose sheet cannot be made is ``failed`` in words.

At most one copy per successful print, with one honest exception: the worker stopped
(killed, the box lost power) after the printer accepted the bytes and before ``done``
was written leaves the job ``printing``; the next start puts it back in the queue and it
prints a second time. A receipt is paper, not money: a second copy is the safe side.
One worker prints for a club.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime, timezone
from typing import Any, Callable

from club.db import Db
from club.errors import UserError
from club.printing import documents, queue
from club.printing.config import PrinterConfig
from club.printing.receipt import escpos_bytes

log = logging.getLogger(__name__)


class PrinterDown(Exception):
    """The printer did not take the job: its reason, for the console."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def open_printer(cfg: PrinterConfig) -> Any:
    """The python-escpos printer of the configuration, opened (PrinterDown if it cannot be)."""
    from escpos import printer

    kw: dict[str, Any] = {"profile": cfg.profile} if cfg.profile else {}
    try:
        if cfg.kind == "network":
            p: Any = printer.Network(cfg.host, cfg.port, timeout=cfg.timeout, **kw)
        elif cfg.kind == "usb":
            p = printer.Usb(cfg.vendor_id, cfg.product_id, timeout=int(cfg.timeout * 1000), **kw)
        elif cfg.kind == "file":
            p = _appending_file(printer.File)(cfg.path, **kw)
        else:
            raise PrinterDown("no printer")
        p.open()
    except PrinterDown:
        raise
    except Exception as e:  # noqa: BLE001  (python-escpos, pyusb and the OS each raise their own)
        raise PrinterDown(_reason(e)) from None
    return p


def _appending_file(base: Any) -> Any:
    """python-escpos's File printer that adds each job after the last instead of writing
    over it (a file stands for a printer's paper roll: a demo club's keeps every job; a
    device such as /dev/usb/lp0 is written the same either way)."""

    class AppendingFile(base):
        def open(self, raise_not_found: bool = True) -> None:
            if self._device:
                self.close()
            try:
                roll = open(self.devfile, "ab")
            except OSError as e:
                raise PrinterDown(e.strerror or str(e)) from None
            self.device = roll

    return AppendingFile


def _reason(e: BaseException) -> str:
    """Why the printer failed, in the operating system's words where it has them
    (``Connection refused``), not python-escpos's wrapping of them."""
    seen: BaseException | None = e
    while seen is not None:
        if isinstance(seen, OSError) and seen.strerror:
            return seen.strerror
        seen = seen.__cause__ or seen.__context__
    lines = str(e).strip().splitlines()
    return (lines[-1].strip() if lines else "") or type(e).__name__


def send(cfg: PrinterConfig, data: bytes) -> None:
    """Send a job's bytes to the printer in one piece (PrinterDown on any failure)."""
    p = open_printer(cfg)
    try:
        p._raw(data)
    except Exception as e:  # noqa: BLE001
        raise PrinterDown(_reason(e)) from None
    finally:
        try:
            p.close()
        except Exception:  # noqa: BLE001  (a close that fails after the bytes went out)
            log.debug("closing the printer", exc_info=True)


class Worker:
    """Prints the queue of the club file ``db`` on the printer ``cfg``.

    ``backoff`` is the first retry delay and its ceiling (seconds); ``poll_s`` how often
    an empty queue is looked at; ``beat_s`` how often the console is told the worker
    lives. ``sender`` replaces :func:`send` (a test's printer)."""

    def __init__(self, db: Db, cfg: PrinterConfig, *, backoff: tuple[float, float] = (1.0, 60.0),
                 poll_s: float = 1.0, beat_s: float = 10.0,
                 sender: Callable[[PrinterConfig, bytes], None] | None = None):
        self.db, self.cfg = db, cfg
        self.backoff, self.poll_s, self.beat_s = backoff, poll_s, beat_s
        self.sender = sender or send
        self.stopping = threading.Event()
        self._beaten = 0.0

    def delay(self, attempts: int) -> float:
        """The wait before the next try after ``attempts`` failed ones."""
        first, ceiling = self.backoff
        return min(ceiling, first * 2 ** max(0, attempts - 1))

    def run(self) -> None:
        """Print until :attr:`stopping` is set."""
        recovered = queue.recover(self.db)
        if recovered:
            log.warning("%d print job(s) left printing by a stopped worker are queued again",
                        recovered)
        while not self.stopping.is_set():
            self.beat()
            wait = self.step()
            if wait:
                self.stopping.wait(wait)

    def beat(self, force: bool = False) -> None:
        now = datetime.now(timezone.utc).timestamp()
        if force or now - self._beaten >= self.beat_s:
            queue.beat(self.db, self.cfg.kind, self.cfg.where())
            self._beaten = now

    def step(self) -> float:
        """Handle the oldest queued job if it is due: 0 when one was handled, else how
        long to wait before looking again."""
        if self.cfg.kind == "none":
            return self.poll_s
        job = queue.next_job(self.db)
        if job is None:
            return self.poll_s
        if job["next_try_at"]:
            due = datetime.fromisoformat(job["next_try_at"])
            left = (due - datetime.now(timezone.utc)).total_seconds()
            if left > 0:
                return min(left, self.poll_s)
        if not queue.claim(self.db, job["id"]):
            return 0
        self.print_job(job)
        return 0

    def print_job(self, job: dict) -> None:
        """Print one claimed job and record how it went."""
        try:
            data = escpos_bytes(
                documents.sheet(self.db, job["kind"], job["args"], self.cfg.columns(),
                                job["lang"]), self.cfg.profile)
        except UserError as e:
            queue.mark_failed(self.db, job["id"], e.key, e.values)
            return
        except Exception as e:  # noqa: BLE001  (a sheet that cannot be made never stops printing)
            log.exception("print job %s could not be laid out", job["id"])
            queue.mark_failed(self.db, job["id"], "print.err.layout", {"reason": type(e).__name__})
            return
        try:
            self.sender(self.cfg, data)
        except PrinterDown as e:
            attempts = job["attempts"] + 1
            log.warning("printer %s: %s (job %s, attempt %d)", self.cfg.where(), e.reason,
                        job["id"], attempts)
            queue.mark_retry(self.db, job["id"], "print.err.printer",
                             {"printer": self.cfg.where(), "reason": e.reason},
                             self.delay(attempts))
            return
        queue.mark_done(self.db, job["id"])
