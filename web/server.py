"""The production server: waitress in one process per core, with sign-ins that must
wait held back.

:func:`bind` opens the listening sockets and :func:`serve` serves on them: in
this process, or in ``workers`` forked processes (one interpreter each, so the
tablets' requests use every core rather than queueing for one interpreter
lock), each started again if it dies and each stopped with the parent. Writers
in different processes queue on the club file's writer lock
(:func:`clubdb.write_tx`), so nothing is written twice or half.

In each process waitress keeps a fixed pool of worker threads, caps open
connections, closes idle ones and sends no version banner. The bytes a request
may carry are bounded where they arrive, before any of them is read into a
worker: headers at :data:`MAX_HEADER_BYTES`, a body at the app's largest route
limit (a Content-Length over it is refused at once, a chunked body as soon as
it passes it), in the app's own words (:func:`worded_refusal`). A client that
starts a request and stalls (the request line and headers but never the blank
line, or half a body) is cut off :data:`REQUEST_TIMEOUT_S` after its first
byte; at the connection limit a new connection takes the place of the one that
has waited longest without a request being served, so held-open connections
can never keep a tablet out; and the event loop (:func:`_poll_loop`, epoll)
looks at a connection that only waits for bytes when something happens to it,
so hundreds of held connections do not slow each request down. Behind a
reverse proxy (``trusted_proxy``) waitress takes the client's address and
scheme from the proxy's last ``X-Forwarded-For`` hop and ``X-Forwarded-Proto``,
from that proxy only.

Its task dispatcher is :class:`SignInHold`: a sign-in from an address that must
still wait (growing delays, :mod:`club.accounts`) is held for a while before it
reaches a worker, by one timer thread and without a worker thread. A flood of
sign-ins from such an address then gets a handful of answers a second instead
of thousands, and the tablets' requests keep the interpreter; a person who
tries again too soon sees the same refusal, a moment later.
"""

from __future__ import annotations

import ctypes
import heapq
import ipaddress
import itertools
import os
import select
import signal
import socket
import sys
import threading
import time
from collections import Counter, deque
from typing import TYPE_CHECKING, Any, Callable, NoReturn

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import MultiSocketServer, TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher
from waitress.utilities import RequestEntityTooLarge, RequestHeaderFieldsTooLarge

import clubdb

if TYPE_CHECKING:
    from flask import Flask

from club.accounts import SIGN_IN_PATH

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
REQUEST_TIMEOUT_S = 10
"""A request must arrive whole (headers and body) within this long of its first byte; a
client that stalls in the middle is cut off (a tablet's request is a few hundred bytes)."""
MAX_HEADER_BYTES = 16 * 1024
"""The request line and headers at most (a browser's are well under 4 kB)."""
PROXY_ADDRESS = "127.0.0.1"
"""Where the reverse proxy connects from (``serve --behind-proxy``): on the same box."""
PROXY_HEADERS = frozenset({"x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"})
"""What a trusted reverse proxy may tell us about the client."""

Refuse = Callable[[int, str, dict, dict], "tuple[str, list[tuple[str, str]], bytes]"]
"""``refuse(status, key, values, environ)``: the answer (status line, headers, body) to a
request the server refuses itself, worded by catalogue ``key`` (:func:`worded_refusal`)."""


class SignInHold(ThreadedTaskDispatcher):
    """waitress's dispatcher of requests to worker threads, holding back sign-ins that
    must wait.

    ``must_wait(address)`` gives the seconds an address must still wait before its
    next sign-in (0: none); it is asked on waitress's event-loop thread, so it must
    be quick and must not touch the database.
    """

    def __init__(self, must_wait: Callable[[str], float], *, hold_s: float = HOLD_S,
                 per_address: int = HOLD_PER_ADDRESS, trusted_proxy: str | None = None) -> None:
        super().__init__()
        self.must_wait, self.hold_s, self.per_address = must_wait, hold_s, per_address
        self.trusted_proxy = trusted_proxy
        self._held: list[tuple[float, int, str, Any]] = []
        self._held_by: Counter = Counter()
        self._order = itertools.count()
        self._cv = threading.Condition()
        self._stopping = False
        self._timer = threading.Thread(target=self._release_due, name="sign-in-hold",
                                       daemon=True)
        self._timer.start()

    def add_task(self, task: Any) -> None:
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

    def _sign_in_address(self, task: Any) -> str | None:
        """The client address of a channel whose next request is a sign-in, else None:
        behind the trusted proxy, the address the proxy names (as the app sees it)."""
        requests = getattr(task, "requests", None)
        addr = getattr(task, "addr", None)
        if not requests or not isinstance(addr, tuple) or not addr:
            return None
        request = requests[0]
        if getattr(request, "command", "") != "POST" or getattr(request, "path", "") \
                != SIGN_IN_PATH:
            return None
        if self.trusted_proxy is not None and addr[0] == self.trusted_proxy:
            forwarded = getattr(request, "headers", {}).get("X_FORWARDED_FOR", "")
            hop = forwarded.rsplit(",", 1)[-1].strip()
            if hop:
                return hop
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

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
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


class _Channel(HTTPChannel):
    """waitress's connection, remembering when the request it is receiving began."""

    request_started: float | None = None
    """``time.time()`` of the first byte of a request not yet received whole, else None."""
    served = 0
    """Requests received whole on this connection."""

    def received(self, data: bytes) -> bool:
        """Take bytes from the client (waitress's parsing), then note whether a request is
        still arriving and since when."""
        before = len(self.requests)
        result = super().received(data)
        self.served += len(self.requests) - before
        if self.request is None:
            self.request_started = None
        elif self.request_started is None:
            self.request_started = time.time()
        return result

    def send_continue(self) -> None:
        """Send "100 Continue" (waitress), and have the poll loop ask this connection again:
        a worker thread sends it after the request before, which the loop does not see."""
        super().send_continue()
        marked = getattr(self._map, "marked", None)
        if marked is not None and self._fileno is not None:
            marked.append(self._fileno)


class _WordedErrorTask(ErrorTask):
    """waitress's answer to a request it refuses itself, in the app's words when the
    refusal is one of its limits."""

    def execute(self) -> None:
        refuse = getattr(self.channel.server, "refuse", None)
        error = self.request.error
        adj = self.channel.server.adj
        if refuse is None or not isinstance(error, (RequestEntityTooLarge,
                                                    RequestHeaderFieldsTooLarge)):
            return super().execute()
        if isinstance(error, RequestEntityTooLarge):
            status, key, most = 413, "http.body_too_large", adj.max_request_body_size - 1
        else:
            status, key, most = 431, "http.headers_too_large", adj.max_request_header_size
        try:
            line, headers, body = refuse(status, key, {"most": _size_words(most)},
                                         _refusal_environ(self.request, adj))
        except Exception:  # noqa: BLE001 - the refusal must be answered whatever happens
            return super().execute()
        self.status = line
        self.response_headers.extend((k, v) for k, v in headers
                                     if k.lower() not in ("content-length", "connection"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


_Channel.error_task_class = _WordedErrorTask


def _size_words(n: int) -> str:
    return f"{n // 1024} KB" if n % 1024 == 0 else f"{n:,} bytes"


def _refusal_environ(request: Any, adj: Any) -> dict:
    """A WSGI environ for a refused request: its method, path, query and headers, no body."""
    from werkzeug.test import EnvironBuilder

    skip = {"CONTENT_LENGTH", "CONTENT_TYPE", "TRANSFER_ENCODING"}
    headers = {k.replace("_", "-"): v for k, v in (request.headers or {}).items()
               if k not in skip}
    builder = EnvironBuilder(path=request.path or "/", method=request.command or "GET",
                             query_string=request.query or "", headers=headers)
    try:
        return builder.get_environ()
    finally:
        builder.close()


_IN = select.POLLIN | select.POLLPRI
_OUT = select.POLLOUT


class _Map(dict):
    """waitress's socket map (descriptor -> dispatcher), noting the descriptors that come,
    go or are marked for a second look (:func:`_poll_loop`)."""

    def __init__(self) -> None:
        super().__init__()
        self.changed: set[int] = set()
        self.marked: deque[int] = deque()
        """Descriptors marked from worker threads (before they wake the loop)."""

    def __setitem__(self, fd: int, obj: Any) -> None:
        super().__setitem__(fd, obj)
        self.changed.add(fd)

    def __delitem__(self, fd: int) -> None:
        super().__delitem__(fd)
        self.changed.add(fd)


def _wants(obj: Any) -> int:
    """What a dispatcher waits for, as wasyncore's poll loop asks it."""
    flags = _IN if obj.readable() else 0
    if obj.writable() and not obj.accepting:
        flags |= _OUT
    return flags


def _poll_loop(socket_map: _Map, timeout: float) -> None:
    """wasyncore's poll loop on one epoll set, kept between rounds.

    wasyncore asks every connection what it waits for on every round, so each held
    connection costs every request time on the event loop. Here a connection that only
    waits for bytes, with nothing in hand (an idle or half-received one), is asked again
    only when something happens to it: it is ready, it comes or goes, or the server marks
    it (maintenance). The listening sockets, the wake-up pipe and every connection with a
    request in hand or bytes to send are asked every round, as before.
    """
    ep = select.epoll()
    registered: dict[int, int] = {}
    every_round: set[int] = set(socket_map)
    ready: set[int] = set()
    try:
        while socket_map:
            fixed = [fd for fd in every_round if not isinstance(socket_map.get(fd), HTTPChannel)]
            for fd in fixed:  # first: a server's maintenance may mark connections
                _register(ep, registered, socket_map, fd, every_round, fd in socket_map.changed)
            while socket_map.marked:
                socket_map.changed.add(socket_map.marked.popleft())
            changed, socket_map.changed = socket_map.changed, set()
            for fd in (every_round | changed | ready).difference(fixed):
                _register(ep, registered, socket_map, fd, every_round, fd in changed)
            ready = set()
            for fd, flags in ep.poll(timeout):
                obj = socket_map.get(fd)
                if obj is not None:
                    ready.add(fd)
                    wasyncore.readwrite(obj, flags)
    finally:
        ep.close()


def _register(ep: select.epoll, registered: dict, socket_map: dict, fd: int, every_round: set,
              new: bool) -> None:
    """Bring ``fd``'s entry in the epoll set in line with what its dispatcher waits for,
    and note whether it must be asked every round."""
    obj = socket_map.get(fd)
    flags = _wants(obj) if obj is not None else 0
    old = registered.pop(fd, 0)
    if new or flags != old:
        if old or new:
            try:
                ep.unregister(fd)
            except OSError:
                pass  # closed (epoll forgot it) or never registered
        if flags:
            try:
                ep.register(fd, flags)
            except FileExistsError:
                ep.modify(fd, flags)
    if flags:
        registered[fd] = flags
    if obj is None:
        every_round.discard(fd)
    elif isinstance(obj, HTTPChannel) and flags == _IN and not obj.requests:
        every_round.discard(fd)  # waits for bytes only: asked again when something happens
    else:
        every_round.add(fd)


class _Server(TcpWSGIServer):
    """waitress's TCP server with :class:`_Channel` connections: requests that stall are cut
    off, and at the connection limit the connection waiting longest without a request in
    hand makes way for a new one."""

    channel_class = _Channel
    request_timeout: float = REQUEST_TIMEOUT_S
    refuse: Refuse | None = None
    next_channel_cleanup: float  # waitress's own, set in its __init__

    def maintenance(self, now: float) -> None:
        """Close connections idle for the channel timeout and those whose request stalls
        past the request timeout."""
        idle_cutoff = now - self.adj.channel_timeout
        stall_cutoff = now - self.request_timeout
        changed: set[int] = getattr(self._map, "changed", set())
        for fd, channel in self.active_channels.items():
            if channel.requests:
                continue
            started = getattr(channel, "request_started", None)
            if channel.last_activity < idle_cutoff or (
                    started is not None and started < stall_cutoff):
                channel.will_close = True
                changed.add(fd)  # the poll loop asks it again

    def run(self) -> None:
        """Serve until KeyboardInterrupt (as waitress does), on :func:`_poll_loop`."""
        try:
            _poll_loop(self._map, self.adj.asyncore_loop_timeout)
        except (SystemExit, KeyboardInterrupt):
            self.task_dispatcher.shutdown()

    def readable(self) -> bool:
        """Accept while under the connection limit, or while a connection can make way."""
        now = time.time()
        if now >= self.next_channel_cleanup:
            self.next_channel_cleanup = now + self.adj.cleanup_interval
            self.maintenance(now)
        if not self.accepting:
            return False
        return len(self._map) < self.adj.connection_limit or self._make_way() is not None

    def handle_accept(self) -> None:
        """Accept a connection; over the limit, close the one that has waited longest."""
        super().handle_accept()
        if len(self._map) > self.adj.connection_limit:
            victim = self._make_way()
            if victim is not None:
                victim.handle_close()

    def _make_way(self) -> Any:
        """The connection to close for a new one: the oldest half-received request, else the
        oldest that never sent a request, else the longest idle one; never one whose
        request is being served or answered. None if every one is busy."""
        best, best_key = None, None
        for channel in self.active_channels.values():
            if channel.requests or channel.total_outbufs_len or channel.will_close:
                continue
            started = getattr(channel, "request_started", None)
            if started is not None:
                key = (0, started)
            elif not getattr(channel, "served", 0):
                key = (1, channel.creation_time)
            else:
                key = (2, channel.last_activity)
            if best_key is None or key < best_key:
                best, best_key = channel, key
        return best


class _MultiServer(MultiSocketServer):
    """waitress's server on several sockets (an address that names IPv4 and IPv6), on
    :func:`_poll_loop`."""

    def run(self) -> None:
        """Serve until KeyboardInterrupt (as waitress does)."""
        try:
            _poll_loop(self.map, self.adj.asyncore_loop_timeout)
        except (SystemExit, KeyboardInterrupt):
            self.task_dispatcher.shutdown()


def listen(socks: list[socket.socket], app: Flask, *, must_wait: Callable[[str], float],
           threads: int = SERVER_THREADS, connection_limit: int = CONNECTION_LIMIT,
           idle_timeout: int = IDLE_TIMEOUT_S, hold_s: float = HOLD_S,
           request_timeout: float = REQUEST_TIMEOUT_S, max_body: int | None = None,
           trusted_proxy: str | None = None, refuse: Refuse | None = None) -> Any:
    """A waitress server for ``app`` on bound sockets, in this process (not yet serving:
    call ``run()``); ``must_wait(address)``: see :class:`SignInHold`. ``max_body``: the
    largest body any route takes (None: waitress's own 1 GB); ``trusted_proxy``: the
    address of the one reverse proxy whose ``X-Forwarded-*`` headers are believed;
    ``refuse``: how the server words its own refusals (see :data:`Refuse`)."""
    dispatcher = SignInHold(must_wait, hold_s=hold_s, trusted_proxy=trusted_proxy)
    dispatcher.set_thread_count(threads)
    options: dict[str, Any] = {}
    if max_body is not None:
        options["max_request_body_size"] = max_body + 1  # waitress refuses at >= its size
    if trusted_proxy is not None:
        # waitress sets REMOTE_ADDR and the scheme from the proxy's last hop (the
        # address it connected from), and drops these headers from anyone else.
        options.update(trusted_proxy=trusted_proxy, trusted_proxy_count=1,
                       trusted_proxy_headers=PROXY_HEADERS)
    try:
        adj = Adjustments(sockets=socks, threads=threads, backlog=BACKLOG,
                          connection_limit=connection_limit, channel_timeout=idle_timeout,
                          cleanup_interval=1,  # cheap: a look at each connection's times
                          asyncore_use_poll=True,  # select() stops at 1,024 sockets
                          max_request_header_size=MAX_HEADER_BYTES,
                          ident="", clear_untrusted_proxy_headers=True, **options)
        socket_map = _Map()
        servers = []
        for sock in socks:
            srv = _Server(app, socket_map, True, sock, dispatcher=dispatcher, adj=adj,
                          bind_socket=False,
                          sockinfo=(sock.family, sock.type, sock.proto, sock.getsockname()))
            srv.request_timeout, srv.refuse = request_timeout, refuse
            servers.append(srv)
        if len(servers) == 1:
            return servers[0]
        return _MultiServer(socket_map, adj,
                            [(s.effective_host, s.effective_port) for s in servers],
                            dispatcher, servers[-1].log_info)
    except BaseException:
        dispatcher.shutdown(timeout=1)
        raise


def worded_refusal(app: Flask) -> Refuse:
    """The server's own refusals (a body or headers over its limits) answered as ``app``
    answers its errors: JSON for /api and JSON callers, a page for people, in the caller's
    language, with the app's security headers."""
    from werkzeug.http import HTTP_STATUS_CODES

    from web.errors import error_response
    from web.i18n import t

    def refuse(status: int, key: str, values: dict,
               environ: dict) -> tuple[str, list[tuple[str, str]], bytes]:
        with app.request_context(environ):
            code = HTTP_STATUS_CODES[status].lower().replace(" ", "_")  # as the app names it
            response = app.make_response(error_response(status, code, t(key, **values)))
            response.status_code = status
            response = app.process_response(response)
            return response.status, list(response.headers.items()), response.get_data()

    return refuse


def run(httpd: Any) -> None:
    """Serve until Ctrl-C / SIGTERM (KeyboardInterrupt), then close the sockets and workers."""
    try:
        httpd.run()  # returns on KeyboardInterrupt after stopping its worker threads
    finally:
        httpd.close()


def serve(socks: list[socket.socket], app: Flask, *, workers: int = WORKERS,
          say: Callable[[str], None] = print, **options: Any) -> None:
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


def _fork(children: dict[int, float], socks: list[socket.socket], app: Flask,
          options: dict[str, Any]) -> None:
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


def stop_on_sigterm() -> None:
    """Leave on SIGTERM as on Ctrl-C (systemd and the tests stop a server with SIGTERM)."""
    # systemd and the demo's test stop us with SIGTERM: leave like Ctrl-C does.
    def handler(_signum: int, _frame: object) -> NoReturn:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)
    # Ctrl-C must work even if we were started with SIGINT ignored (a background job).
    signal.signal(signal.SIGINT, signal.default_int_handler)


def address(host: str, port: int) -> str:
    """The address people type for a server on ``host``:``port`` (the LAN address for a
    wildcard host)."""
    shown = host
    if host in ("0.0.0.0", "", "::"):
        shown = lan_ip()
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def lan_ip() -> str:
    """This machine's address on the local network (for tablet URLs), else 127.0.0.1."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"


def loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or name (nothing beyond this machine)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
