"""A simulated device the host reaches on a raw pseudo-terminal, served by its own thread.

The relay board and the bridge model share this: :meth:`PtyDevice.serve_pty` opens the
pty and starts the thread that runs the subclass's :meth:`PtyDevice._serve` (which reads
the host through :meth:`PtyDevice._reads`), and :meth:`PtyDevice.stop` ends it and closes
both ends.
"""

from __future__ import annotations

import os
import select
import signal
import threading
import tty
from collections.abc import Iterator
from typing import Any


class PtyDevice:
    """The pty and the serving thread of one simulated device."""

    THREAD_NAME = "pty-device"

    def __init__(self) -> None:
        self._master = self._slave = -1
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.path: str | None = None

    def serve_pty(self) -> str:
        """Open a raw pseudo-terminal and serve on it; returns its device path."""
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)
        self.path = os.ttyname(self._slave)
        self._thread = threading.Thread(target=self._serve, name=self.THREAD_NAME, daemon=True)
        self._thread.start()
        return self.path

    def _serve(self) -> None:
        """Read the host's bytes from ``self._master`` and answer until ``self._stop``."""
        raise NotImplementedError

    def _reads(self, wait: float, size: int) -> Iterator[bytes]:
        """What the host writes, a chunk of at most ``size`` bytes at a time, and ``b""``
        each time ``wait`` seconds pass without any; ends at :meth:`stop` or when the pty
        closes."""
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], wait)
            if not ready:
                yield b""
                continue
            try:
                data = os.read(self._master, size)
            except OSError:
                return
            yield data

    def stop(self) -> None:
        """Stop serving and close the pty."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
            self._thread = None
        for fd in (self._master, self._slave):
            if fd >= 0:
                os.close(fd)
        self._master = self._slave = -1

    def run_as_program(self) -> int:
        """Serve as a program does: print the pty's path, serve until SIGTERM or Ctrl-C,
        then stop; the exit status."""
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        print(self.serve_pty(), flush=True)
        try:
            while not stop.wait(0.5):
                pass
        finally:
            self.stop()
        return 0

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
