"""The production server: waitress in one process per core, with sign-ins that must
wait held back.

:func:`bind` opens the listening sockets and :func:`serve` serves on them: in
this process, or in ``workers`` forked processes (one interpreter each, so the
tablets' requests use every core rather than queueing for one interpreter
lock), each started again if it dies and each stopped with the parent. Writers
in different processes queue on the club file's writer lock
(:func:`clubdb.write_tx`), so nothing is written twice or half.

In each process waitress keeps a fixed pool of worker threads, caps open
connections, closes idle ones and sends no version banner. Its task dispatcher
is :class:`SignInHold`: a sign-in from an address that must still wait (growing
delays, :mod:`web.auth`) is held for a while before it reaches a worker, by one
timer thread and without a worker thread. A flood of sign-ins from such an
address then gets a handful of answers a second instead of thousands, and the
tablets' requests keep the interpreter; a person who tries again too soon sees
the same refusal, a moment later.
"""

from __future__ import annotations

import ctypes
import heapq
import itertools
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from typing import Callable

from waitress.adjustments import Adjustments
from waitress.server import create_server
from waitress.task import ThreadedTaskDispatcher

import clubdb

from .auth import SIGN_IN_PATH

WORKERS = min(os.cpu_count() or 1, 4)
"""Server processes by default: one per core (at most 4; a club box has few)."""
SERVER_THREADS = 2
"""Worker threads per process: requests in progress at once in one process (a hand's
write is short; the club file has one writer at a time)."""
CONNECTION_LIMIT = 500
"""Open connections at most, all processes together (idle ones cost a socket, not a
thread); more wait in the listen backlog until one closes."""
BACKLOG = 1024
"""Connections the kernel queues for the processes to accept."""
RESTART_PAUSE_S = 1.0
"""A process that dies within this long of its start is started again only after it."""
STOP_GRACE_S = 10.0
"""How long the processes get to finish their requests when the server stops."""
IDLE_TIMEOUT_S = 60
"""An idle connection is closed after this long."""
HOLD_S = 2.0
"""How long a sign-in that must still wait is held before it is answered (at most)."""
HOLD_PER_ADDRESS = 16
"""Sign-ins held at once per address; more are answered at once (their refusal is cheap),
so one address cannot fill the connection limit with held requests."""


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


def bind(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for host:port, one per address it names (as waitress binds them;
    port 0: a free one). OSError if one cannot be bound."""
    socks = []
    try:
        for family, socktype, proto, sockaddr in Adjustments(host=host, port=port).listen:
            sock = socket.socket(family, socktype, proto)
            socks.append(sock)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(sockaddr)
            sock.listen(BACKLOG)
    except BaseException:
        for sock in socks:
            sock.close()
        raise
    return socks


def listen(socks: list[socket.socket], app, *, must_wait: Callable[[str], float],
           threads: int = SERVER_THREADS, connection_limit: int = CONNECTION_LIMIT,
           idle_timeout: int = IDLE_TIMEOUT_S, hold_s: float = HOLD_S):
    """A waitress server for ``app`` on bound sockets, in this process (not yet serving:
    call ``run()``); ``must_wait(address)``: see :class:`SignInHold`."""
    dispatcher = SignInHold(must_wait, hold_s=hold_s)
    dispatcher.set_thread_count(threads)
    try:
        # waitress takes its dispatcher through ``_dispatcher``, the one way to give it ours
        return create_server(app, sockets=socks, threads=threads, backlog=BACKLOG,
                             connection_limit=connection_limit, channel_timeout=idle_timeout,
                             cleanup_interval=max(1, min(30, idle_timeout // 2)),
                             asyncore_use_poll=True,  # select() stops at 1,024 sockets
                             ident="", clear_untrusted_proxy_headers=True,
                             _dispatcher=dispatcher)
    except BaseException:
        dispatcher.shutdown(timeout=1)
        raise


def run(httpd) -> None:
    """Serve until Ctrl-C / SIGTERM (KeyboardInterrupt), then close the sockets and workers."""
    try:
        httpd.run()  # returns on KeyboardInterrupt after stopping its worker threads
    finally:
        httpd.close()


def serve(socks: list[socket.socket], app, *, workers: int = WORKERS,
          say: Callable[[str], None] = print, **options) -> None:
    """Serve ``app`` on bound sockets until Ctrl-C / SIGTERM (KeyboardInterrupt): in this
    process (``workers`` 1) or in ``workers`` forked processes, each started again if it
    dies (not if it stops when asked). ``options``: :func:`listen`'s; the connection limit
    is shared out among the processes."""
    if workers <= 1:
        run(listen(socks, app, **options))
        return
    options["connection_limit"] = max(
        1, options.get("connection_limit", CONNECTION_LIMIT) // workers)
    # No connection may cross a fork (SQLite's rule); each process opens its own.
    clubdb.close_shared()
    children: dict[int, float] = {}
    try:
        for _ in range(workers):
            _fork(children, socks, app, options)
        while children:
            pid, status = os.wait()
            started = children.pop(pid, None)
            if started is None or os.waitstatus_to_exitcode(status) == 0:
                continue  # asked to stop (Ctrl-C reaches every process of the terminal)
            say(f"A server process stopped ({_status_words(status)}); starting another.")
            if time.monotonic() - started < RESTART_PAUSE_S:
                time.sleep(RESTART_PAUSE_S)
            _fork(children, socks, app, options)
    finally:
        _stop(children)


def _fork(children: dict[int, float], socks, app, options) -> None:
    parent = os.getpid()
    pid = os.fork()
    if pid:
        children[pid] = time.monotonic()
        return
    code = 0
    try:
        _die_with(parent)
        run(listen(socks, app, **options))
    except KeyboardInterrupt:
        pass
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _die_with(parent: int) -> None:
    """Be sent SIGTERM when the parent ends, however it ends (a kill -9 included), so no
    process is left serving from a stopped server."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the parent stops its processes when it is stopped
    if os.getppid() != parent:  # the parent ended before the line above
        raise KeyboardInterrupt


def _stop(children: dict[int, float]) -> None:
    for pid in children:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE_S
    while children and time.monotonic() < deadline:
        for pid in list(children):
            try:
                done = os.waitpid(pid, os.WNOHANG)[0]
            except ChildProcessError:
                done = pid
            if done:
                children.pop(pid)
        time.sleep(0.05)
    for pid in children:
        _signal(pid, signal.SIGKILL)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _status_words(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"
