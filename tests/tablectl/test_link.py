"""The JP-EX transaction layer (tablectl.drivers.jpex.Link) against the simulator: in
process (sim://, plugged in through the transport entry point) and over a real pty;
retransmission, NAK, duplicate replies, HELLO, history, backoff, odd devices."""

import os
import random
import threading
import tty

import pytest

from hardware_sim import protocol_sim
from tablectl import protocol
from tablectl.daemon import Backoff
from tablectl.drivers.base import LinkDown, Unsupported
from tablectl.drivers.jpex import Link, LinkTimeout
from tablectl.settings import LinkSettings
from tests.support.tablectl import sim_on_pty

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.fixture
def named_sim():
    yield "sim://linktest?mode=1&time_scale=0.001&boot_s=20"
    protocol_sim.close_all()


@pytest.fixture
def link_to(tmp_path):
    links = []

    def make(url, **settings):
        events = []
        ln = Link(url, settings=LinkSettings(**settings), on_event=events.append,
                  lock_dir=str(tmp_path))
        ln.events = events
        links.append(ln)
        return ln
    yield make
    for ln in links:
        ln.close()


def test_hello_first_then_commands_continue_after_tables_last_seq(named_sim, link_to):
    ln = link_to(named_sim)
    hello = ln.connect()
    assert hello.model == "AMOS JP-EX COLOR" and hello.auto_deal
    assert ln.connected
    sim = protocol_sim.get("linktest")
    assert sim.executed_names() == ["HELLO"]
    reply = ln.transact(protocol.Status())
    assert isinstance(reply, protocol.StatusReply) and reply.state.mode == 1
    seq_used = ln.next_seq() - 1
    ln.close()
    # a new link (a restarted daemon) learns last_seq from HELLO and never reuses it
    ln2 = link_to(named_sim)
    h2 = ln2.connect()
    assert h2.last_seq == seq_used and h2.last_cmd == protocol.Status.CMD
    assert ln2.next_seq() == (seq_used + 1) % 256


def test_lost_reply_is_retransmitted_with_same_seq_and_not_run_twice(named_sim, link_to):
    ln = link_to(named_sim, timeout=1.0)    # a reply only late on a busy machine is not lost
    ln.connect()
    sim = protocol_sim.get("linktest")
    sim.sticks_for(1)
    sim.faults.once("drop", "tx")           # the table's reply is lost once
    seqs = []
    reply = ln.transact(protocol.SelectMode(2), before_send=seqs.append)
    assert reply.result == protocol.Result.OK and reply.pending_mode == 2
    assert sim.executed_names().count("SELECT_MODE") == 1
    assert ln.counters["retransmits"] == 1 and len(seqs) == 1  # journalled once, before sending


def test_damaged_command_is_nakked_and_resent(named_sim, link_to):
    ln = link_to(named_sim)
    ln.connect()
    sim = protocol_sim.get("linktest")
    sim.faults.once("corrupt", "rx")
    assert ln.transact(protocol.ReadPoints()).ok
    assert ln.counters["naks"] == 1
    assert sim.executed_names().count("READ_POINTS") == 1


def test_duplicated_reply_is_ignored(named_sim, link_to):
    ln = link_to(named_sim)
    ln.connect()
    sim = protocol_sim.get("linktest")
    sim.faults.once("duplicate", "tx")
    assert ln.transact(protocol.Status()).ok
    assert ln.transact(protocol.ReadPoints()).ok   # the stray duplicate is not taken as this reply
    assert ln.counters["stray_replies"] >= 1


def test_silent_table_times_out_after_bounded_retries_with_frames(named_sim, link_to):
    ln = link_to(named_sim, timeout=0.05, retries=2)
    ln.connect()
    sim = protocol_sim.get("linktest")
    sim.faults.set(drop=1.0, direction="tx")
    with pytest.raises(LinkTimeout) as e:
        ln.transact(protocol.Status())
    assert e.value.values["tries"] == 3 and "3" in e.value.text("en")
    sent = [f for f in e.value.frames if " -> " in f]
    assert len([f for f in sent if "Status" in f]) == 3   # the history shows every try
    sim.faults.clear()


def test_unplugged_pty_reports_link_down(tmp_path, link_to):
    sim, path = sim_on_pty(tmp_path, "pty")
    try:
        ln = link_to(path)
        ln.connect()
        sim.unplug()
        with pytest.raises((LinkDown, LinkTimeout)):
            ln.transact(protocol.Status())
            ln.transact(protocol.Status())
        sim.plug()
        ln.connect()          # the stable path follows the new pty
        assert ln.transact(protocol.Status()).ok
        ln.close()
    finally:
        sim.stop()


def test_events_go_to_the_callback(named_sim, link_to):
    ln = link_to(named_sim)
    ln.connect()
    sim = protocol_sim.get("linktest")
    sim.open_lid()
    sim.close_lid()
    import time
    deadline = time.monotonic() + 5
    while protocol.LidClosed not in [type(e) for e in ln.events] and time.monotonic() < deadline:
        time.sleep(0.01)
    kinds = [type(e) for e in ln.events]
    assert kinds.index(protocol.LidOpened) < kinds.index(protocol.ErrorRaised) \
        < kinds.index(protocol.LidClosed)


def test_cannot_open_gives_link_down_in_words(link_to, tmp_path):
    ln = link_to(str(tmp_path / "no-such-tty"))
    with pytest.raises(LinkDown) as e:
        ln.connect()
    assert e.value.code == "port_missing" and not ln.connected
    assert "does not exist" in e.value.text("en") and "ありません" in e.value.text("ja")
    with pytest.raises(LinkDown) as e:
        link_to("socket://127.0.0.1:1").connect()
    assert e.value.code == "refused" and "refused" in e.value.text("en")


def test_backoff_grows_caps_and_jitters():
    b = Backoff(0.05, 1.0, random.Random(1))
    delays = [b.next() for _ in range(10)]
    assert all(0.025 <= d <= 1.0 for d in delays)
    assert delays[0] <= 0.05 and max(delays) > 0.4
    assert all(d >= 0.5 for d in delays[6:])       # capped at 1.0, jitter x0.5..1
    b.reset()
    assert b.next() <= 0.05


def test_sim_scheme_comes_from_the_transport_entry_point_not_an_import():
    """tablectl finds sim:// in the jantaku.serial_transports entry points; nothing in
    tablectl imports hardware_sim."""
    import pathlib

    from tablectl import serialport

    assert "sim" in serialport.transports()
    root = pathlib.Path(serialport.__file__).parent
    for path in root.rglob("*.py"):
        assert "hardware_sim" not in path.read_text(encoding="utf-8").replace(
            "``hardware_sim``", ""), path


def test_socket_url_to_a_network_serial_server(link_to):
    from hardware_sim.simulator import Simulator

    sim = Simulator(time_scale=0.001).start()
    try:
        port = sim.serve_tcp()
        ln = link_to(f"socket://127.0.0.1:{port}")
        assert ln.connect().model == "AMOS JP-EX COLOR"
        assert ln.transact(protocol.ReadPoints()).ok
        ln.close()
    finally:
        sim.stop()


def test_a_protocol_2_table_is_refused_once_and_not_greeted_again(link_to):
    """docs/protocol.md section 11: a host that needs another version stops and says so."""
    ln = link_to("sim://v2?time_scale=0.001&protocol=2")
    try:
        with pytest.raises(Unsupported) as e:
            ln.connect()
        assert e.value.code == "unsupported_version" and e.value.values["version"] == 2
        assert not e.value.retry and "version 2" in e.value.text("en")
        assert protocol_sim.get("v2").executed_names() == ["HELLO"]
    finally:
        protocol_sim.close_all()


def _text_device(answer: bytes):
    """A device on a real pty that answers every read with ``answer`` (a modem, a GPS,
    a relay board...): not a JP-EX table."""
    master, slave = os.openpty()
    tty.setraw(slave)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                if os.read(master, 256):
                    os.write(master, answer)
            except OSError:
                return
    t = threading.Thread(target=serve, daemon=True)
    t.start()

    def close():
        stop.set()
        os.close(master)
        os.close(slave)
        t.join(2)
    return os.ttyname(slave), close


@pytest.mark.parametrize("answer,code,words", [
    (b"OK\r\nERROR\r\n", "ascii_answer", "answers in text (OK"),
    (bytes(range(0x80, 0x90)), "garbage_answer", "not JP-EX frames"),
])
def test_a_device_that_is_no_jpex_table_is_named_not_called_silent(link_to, answer, code, words):
    path, close = _text_device(answer)
    try:
        # the device's answer must be heard before HELLO gives up, or the line is only
        # silent: the wait is long enough for a busy machine (HELLO waits it out anyway)
        ln = link_to(path, timeout=0.5, retries=1)
        with pytest.raises(LinkDown) as e:
            ln.connect()
        assert e.value.code == code and words in e.value.text("en")
        ln.close()
    finally:
        close()


def test_a_silent_line_is_no_answer(link_to):
    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        ln = link_to(os.ttyname(slave), timeout=0.05, retries=1)
        with pytest.raises(LinkDown) as e:
            ln.connect()
        assert e.value.code == "no_answer" and "does not answer" in e.value.text("en")
        ln.close()
    finally:
        os.close(master)
        os.close(slave)
