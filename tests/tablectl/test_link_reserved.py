"""docs/protocol.md section 4: a host ignores frames of a type it does not know (the
reserved event types 0x4B-0x4F, types in no range, a reply type no command has), and
keeps taking the table's replies and events; the table answers a frame whose type is no
command with NAK UNKNOWN_COMMAND (tests/hardware_sim/test_simulator.py)."""

import os
import select
import threading
import time
import tty

import pytest

from tablectl import protocol
from tablectl.drivers.jpex import Link
from tablectl.settings import LinkSettings

pytestmark = pytest.mark.usefixtures("no_leaks")

UNKNOWN_TYPES = (0x4B, 0x4C, 0x4F, 0x40, 0x50, 0x00, 0xC0, 0xFF, 0xBF)


class NewerTable:
    """A table on a real pty that sends, before each reply, one frame of every type this
    host does not know (as a later firmware with more events might), then a lid event."""

    def __init__(self) -> None:
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        decoder = protocol.FrameDecoder()
        events = 0
        while not self.stop.is_set():
            if not select.select([self.master], [], [], 0.02)[0]:
                continue
            try:
                data = os.read(self.master, 1024)
            except OSError:
                return
            for frame in decoder.feed(data):
                out = b""
                for kind in UNKNOWN_TYPES:
                    out += protocol.encode_frame(protocol.Frame(seq=events, cmd=kind,
                                                                payload=b"\x01\x02"))
                    events = (events + 1) % 256
                msg = protocol.message_from_frame(frame)
                reply = (protocol.HelloReply(protocol.Result.OK) if isinstance(msg, protocol.Hello)
                         else protocol.StatusReply(protocol.Result.OK))
                out += protocol.encode_frame(reply.to_frame(frame.seq))
                out += protocol.encode_frame(protocol.LidOpened().to_frame(events))
                events = (events + 1) % 256
                os.write(self.master, out)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


def test_a_host_ignores_reserved_and_unknown_types(tmp_path):
    table = NewerTable()
    got: list[object] = []
    ln = Link(table.path, settings=LinkSettings(timeout=0.5), on_event=got.append,
              lock_dir=str(tmp_path))
    try:
        assert ln.connect().protocol_version == protocol.PROTOCOL_VERSION
        for _ in range(3):
            assert ln.transact(protocol.Status()).ok
        assert ln.connected and ln.counters["timeouts"] == 0
        deadline = time.monotonic() + 5
        while len(got) < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert got == [protocol.LidOpened()] * 4          # only the events it knows reach the host
    finally:
        ln.close()
        table.close()
