"""The production server: waitress, with sign-in attempts that must wait held back.

waitress keeps a fixed pool of worker threads, caps open connections, closes idle
ones and sends no version banner. Its task dispatcher is replaced by
:class:`SignInHold`: a sign-in from an address that must still wait (growing
delays, :mod:`web.auth`) is held for a while before it reaches a worker, by one
timer thread and without a worker thread. A flood of sign-ins from such an
address then gets a handful of answers a second instead of thousands, and the
tablets' requests keep the interpreter; a person who tries again too soon sees
the same refusal, a moment later.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections import Counter
from typing import Callable

from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

SERVER_THREADS = 8
"""Worker threads: requests in progress at once (a hand's write is short; SQLite has one writer)."""
CONNECTION_LIMIT = 500
"""Open connections at most (idle ones cost a socket, not a thread); more wait in the
listen backlog until one closes."""
IDLE_TIMEOUT_S = 60
"""An idle connection is closed after this long."""
HOLD_S = 2.0
"""How long a sign-in that must still wait is held before it is answered (at most)."""
HOLD_PER_ADDRESS = 16
"""Sign-ins held at once per address; more are answered at once (their refusal is cheap),
so one address cannot fill the connection limit with held requests."""
SIGN_IN_PATH = "/auth/login"


class SignInHold(ThreadedTaskDispatcher):
    """waitress's dispatcher of requests to worker threads, holding back sign-ins that
    must wait.

    ``must_wait(address)`` gives the seconds an address must still wait before its
    next sign-in (0: none); it is asked on waitress's event-loop thread, so it must
    be quick and must not touch the database.
    """

    def __init__(self, must_wait: Callable[[str], float], *, hold_s: float = HOLD_S,
                 per_address: int = HOLD_PER_ADDRESS):
        super().__init__()
        self.must_wait, self.hold_s, self.per_address = must_wait, hold_s, per_address
        self._held: list[tuple[float, int, str, object]] = []
        self._held_by: Counter = Counter()
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._stopping = False
        self._timer = threading.Thread(target=self._release_due, name="sign-in-hold",
                                       daemon=True)
        self._timer.start()

    def add_task(self, task) -> None:
        """Queue a channel's next request for a worker, unless it is a sign-in to hold."""
        address = self._sign_in_address(task)
        if address is not None:
            wait = min(self.must_wait(address), self.hold_s)
            if wait > 0:
                with self._cv:
                    if self._held_by[address] < self.per_address and not self._stopping:
                        self._held_by[address] += 1
                        heapq.heappush(self._held, (time.monotonic() + wait,
                                                    next(self._order), address, task))
                        self._cv.notify()
                        return
        super().add_task(task)

    @staticmethod
    def _sign_in_address(task) -> str | None:
        """The client address of a channel whose next request is a sign-in, else None."""
        requests = getattr(task, "requests", None)
        addr = getattr(task, "addr", None)
        if not requests or not isinstance(addr, tuple) or not addr:
            return None
        request = requests[0]
        if getattr(request, "command", "") != "POST" or getattr(request, "path", "") \
                != SIGN_IN_PATH:
            return None
        return str(addr[0])

    def _release_due(self) -> None:
        """Hand held sign-ins to the workers when their time is up (the timer thread)."""
        while True:
            with self._cv:
                while not self._stopping and (
                        not self._held or self._held[0][0] > time.monotonic()):
                    self._cv.wait(self._held[0][0] - time.monotonic() if self._held else None)
                if self._stopping:
                    return
                _, _, address, task = heapq.heappop(self._held)
                self._held_by[address] -= 1
                if not self._held_by[address]:
                    del self._held_by[address]
            super().add_task(task)

    def held(self) -> int:
        """Sign-ins held right now."""
        with self._cv:
            return len(self._held)

    def shutdown(self, cancel_pending=True, timeout=5):
        """Stop the timer and cancel the held sign-ins (their connections close), then stop
        the workers as waitress does."""
        with self._cv:
            self._stopping = True
            held = [task for *_, task in self._held]
            self._held.clear()
            self._held_by.clear()
            self._cv.notify()
        self._timer.join(timeout)
        for task in held:
            task.cancel()
        return super().shutdown(cancel_pending, timeout)


def listen(host: str, port: int, app, *, must_wait: Callable[[str], float],
           threads: int = SERVER_THREADS, connection_limit: int = CONNECTION_LIMIT,
           idle_timeout: int = IDLE_TIMEOUT_S, hold_s: float = HOLD_S):
    """A waitress server for ``app`` bound to host:port (not yet serving: call ``run()``);
    ``must_wait(address)``: see :class:`SignInHold`. OSError if the address cannot be bound."""
    dispatcher = SignInHold(must_wait, hold_s=hold_s)
    dispatcher.set_thread_count(threads)
    try:
        # waitress takes its dispatcher through ``_dispatcher``, the one way to give it ours
        return create_server(app, host=host, port=port, threads=threads,
                             connection_limit=connection_limit, channel_timeout=idle_timeout,
                             cleanup_interval=max(1, min(30, idle_timeout // 2)),
                             asyncore_use_poll=True,  # select() stops at 1,024 sockets
                             ident="", clear_untrusted_proxy_headers=True,
                             _dispatcher=dispatcher)
    except BaseException:
        dispatcher.shutdown(timeout=1)
        raise
