"""``python -m scoring batch``: JSON Lines in, JSON Lines out (docs/contracts/scoring-batch.md).

    score_lines(lines, rules) -> Iterator[str]       # one output line per input line
    serve(rules, workers, stdin, stdout)             # the whole run over binary streams

The scoring itself is :mod:`scoring.hand` (typed input, typed result); this module is the
runtime around it, built for throughput:

* **the codec.** A line is read by the C JSON scanner directly, and a result line is joined
  from memoized JSON text of its recurring parts (a yaku, a fu line, a price, a chip award),
  byte for byte what ``json.dumps`` of :func:`scoring.hand.result_line` gives
  (tests/scoring/test_batch_fastpath.py holds the two together);
* **shares and forks.** A file on stdin is cut at line ends into one share per worker, each
  read by offset and scored by its own process (this one and forked children that share the
  loaded engine: no pickling); piped input is read a round at a time and shared out the same
  way. A child that dies has its share scored here, so no line is lost or answered twice;
* **a quick exit.** Scoring makes no reference cycles, so the cyclic collector is switched
  off, and once the output is flushed the process leaves without the interpreter's teardown
  (which frees every memoized reading one by one).
"""

from __future__ import annotations

import gc
import json
import json.decoder
import json.encoder
import json.scanner
import os
import signal
import stat
import sys
import tempfile
from typing import Any, Callable, Final, Iterable, Iterator, NoReturn

from .errors import ScoringError
from .hand import (
    HandResult,
    error_line,
    line_rules,
    parse_input,
    score,
    score_hand,
    yaku_list,
)
from .memo import Memo
from .rules import Rules, load_rules
from .tiles import tile_to_str

ROUND: Final = 1 << 22  # bytes read at a time (about 20,000 lines), shared out among workers
MIN_SHARE: Final = 1 << 16  # below this much input per worker, one process is quicker than forking


# --------------------------------------------------------------------------- reading a line
# json.loads(text) is a Python-level wrapper (BOM test, two whitespace regex matches, the
# decoder's raw_decode) around the C scanner; a batch line is one object, so the scanner is
# called directly and anything unusual is handed to json.loads for its answer or its message
_SCAN: Final = json.scanner.make_scanner(json.decoder.JSONDecoder())  # type: ignore[arg-type]


def _loads(raw: str) -> Any:
    """json.loads(raw), faster for the common ``{...}`` line with at most trailing CR/LF."""
    if raw[:1] == "{":
        try:
            obj, end = _SCAN(raw, 0)
        except (StopIteration, ValueError, RecursionError):
            return json.loads(raw)  # raises with json's own message
        if end == len(raw) or not raw[end:].strip(" \t\n\r"):
            return obj
    return json.loads(raw)


# --------------------------------------------------------------------------- writing a line
_LINE_BREAKS: Final = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_JSON_STR: Final = json.encoder.encode_basestring  # the C function json.dumps uses for a str
_ERROR_FIELDS: Final = ("code", "message", "reason", "values")


def line_text(out: dict[str, Any]) -> str:
    """One JSON line. Japanese stays readable, but the characters some readers take for a
    line break (NEL, LS, PS; control characters json escapes already) are written escaped,
    so one result is always exactly one line for any reader."""
    return _one_line(json.dumps(out, ensure_ascii=False))


def _one_line(text: str) -> str:
    """``text`` with NEL, LS and PS escaped (json leaves them raw)."""
    if text.isascii() or not ("\x85" in text or "\u2028" in text or "\u2029" in text):
        return text  # three substring scans cost far less than translate's per-character map
    return text.translate(_LINE_BREAKS)


# JSON text of the parts of a result line that recur across a batch (a yaku, a fu line, a
# price, a chip award): made once each by json.dumps itself, so the joined line is the very
# text json.dumps(result line) gives, at a fraction of the cost
_YAKU_TEXT: Final = Memo(20_000)  # (id, han, yakuman) -> its JSON text
_FU_TEXT: Final = Memo(20_000)  # (reason, fu) -> its JSON text
_BY_IDENTITY: Final = Memo(4096)  # id(memoized object) -> (the object, its JSON text)


def _list_text(memo: Memo, items: list[Any], make: Callable[..., Any]) -> str:
    """JSON text of a list, joined from each item's memoized text (a hand's list as a whole
    seldom recurs, its items do: "closed_pon 5p", "riichi" ...)."""
    texts = []
    for it in items:
        text = memo.get(it)
        if text is None:
            text = memo.put(it, json.dumps(make(it), ensure_ascii=False))
        texts.append(text)
    return "[" + ", ".join(texts) + "]"


def _shared_text(obj: Any, make: Callable[..., Any]) -> str:
    """JSON text of an object the engine memoizes and hands out again and again (a price,
    a chip award), kept by the object's identity (checked, and the object held so that its
    id is not reused)."""
    hit: tuple[Any, str] | None = _BY_IDENTITY.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    kept: tuple[Any, str] = _BY_IDENTITY.put(id(obj), (obj, make(obj)))
    return kept[1]


def _price_text(v: Any) -> str:
    """``"limit": ..., "value": ..., "pay": {...}`` of a HandValue (without the braces)."""
    return json.dumps({"limit": v.limit, "value": v.value, "pay": v.pay}, ensure_ascii=False)[1:-1]


def _json_text(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _one_yaku(y: tuple[Any, ...]) -> dict[str, Any]:
    return yaku_list((y,))[0]


def _id_text(line_id: Any) -> str:
    if line_id is None:
        return "null"
    text = json.dumps(line_id, ensure_ascii=False)
    return text if text.isascii() else text.translate(_LINE_BREAKS)


def result_text(line_id: Any, res: HandResult) -> str:
    """``line_text(result_line(line_id, res))``, joined from memoized parts."""
    parts = [
        '{"id": ',
        _id_text(line_id),
        f', "ok": true, "han": {res.han}, "fu": {res.fu}, "yakuman": {res.yakuman}, "yaku": ',
        _list_text(_YAKU_TEXT, res.yaku, _one_yaku),
        ", ",
        _shared_text(res.value, _price_text),
        f', "honba_bonus": {res.honba_bonus}, "kyoutaku_bonus": {res.kyoutaku_bonus}'
        ', "chips": ',
        _shared_text(res.chips, _json_text),
        ', "fu_detail": ',
        _list_text(_FU_TEXT, res.fu_detail, list),
        f', "wait": "{res.wait}", "dora_count": {res.dora_count}',
    ]
    if res.pocchi_as is not None:
        parts.append(f', "pocchi_as": "{tile_to_str(res.pocchi_as)}"')
    parts.append("}")
    return "".join(parts)


def error_text(out: dict[str, Any]) -> str:
    """``line_text(out)`` of an :func:`scoring.hand.error_line` dict (a third of a random
    batch), joined from its parts instead of walking the dict with json.dumps."""
    err = out["error"]
    if out["ok"] is not False or tuple(err) != _ERROR_FIELDS:
        return line_text(out)
    values = json.dumps(err["values"], ensure_ascii=False) if err["values"] else "{}"
    return _one_line(
        f'{{"id": {_id_text(out["id"])}, "ok": false, "error": {{"code": {_JSON_STR(err["code"])}, '
        f'"message": {_JSON_STR(err["message"])}, "reason": {_JSON_STR(err["reason"])}, '
        f'"values": {values}}}}}'
    )


# --------------------------------------------------------------------------- scoring lines
def score_lines(lines: Iterable[str], rules: Any) -> Iterator[str]:
    """One output JSON line per input line, in order; a bad line becomes an ``ok: false``
    line. ``rules``: a :class:`Rules`, a preset id or a TOML path (a line's own wins)."""
    rules = load_rules(rules)
    for raw in lines:
        try:
            line = _loads(raw)
        except (ValueError, RecursionError) as e:
            yield line_text(
                error_line(None, ScoringError(f"the line is not valid JSON: {e}",
                                              reason="line_not_json", why=str(e)))
            )
            continue
        yield _guarded(line, rules)


def _guarded(line: Any, rules: Rules) -> str:
    """The output text of one line, with a last guard so one bad line never stops a batch."""
    try:
        return _scored_text(line, rules)
    except Exception as e:  # noqa: BLE001 - a bug must not kill the rest of the batch
        line_id = line.get("id") if isinstance(line, dict) else None
        return line_text(
            error_line(
                line_id,
                ScoringError(
                    f"this line could not be scored ({type(e).__name__}: {e}); please report it",
                    reason="internal_error", why=f"{type(e).__name__}: {e}",
                ),
            )
        )


def _scored_text(line: Any, rules: Rules) -> str:
    line_id = line.get("id") if isinstance(line, dict) else None
    try:
        rules = line_rules(line, rules)
        if rules.table.family == "mcr":
            return line_text(score_hand(line, rules))
        res = score(parse_input(line, rules), rules)
    except ScoringError as e:
        return error_text(error_line(line_id, e))
    if res.error is not None:
        return error_text(error_line(line_id, res.error))
    return result_text(line_id, res)


def score_chunk(data: bytes, rules: Any) -> bytes:
    """Score a piece of the input; the output bytes, one line per input line.

    A bad byte becomes U+FFFD, so its line is reported as not JSON instead of stopping
    the batch (a newline is never part of a multi-byte sequence, so cutting the input
    at newlines first changes nothing)."""
    lines = data.decode("utf-8", errors="replace").split("\n")
    if not lines[-1]:
        lines.pop()
    return "".join([text + "\n" for text in score_lines(lines, rules)]).encode("utf-8")


# --------------------------------------------------------------------------- cutting input
def chunks(stream: Any, size: int) -> Iterator[bytes]:
    """Whole lines of a binary stream, in pieces of about ``size`` bytes."""
    held: list[bytes] = []
    while data := stream.read(size):
        cut = data.rfind(b"\n") + 1
        if not cut:  # no line ends here yet
            held.append(data)
            continue
        held.append(data[:cut])
        yield b"".join(held)
        held = [data[cut:]]
    if any(held):
        yield b"".join(held)


def _cut_points(start: int, end: int, n: int, after_line_end: Callable[[int], int]) -> list[int]:
    """``[start, ..., end]``: offsets cutting ``start``..``end`` into at most ``n`` parts of
    about equal size, each cut moved on to ``after_line_end(pos)``, the offset just past the
    first newline at or after ``pos`` (``end`` if there is none)."""
    cuts = [start]
    for i in range(1, n):
        pos = after_line_end(max(start + (end - start) * i // n, cuts[-1]))
        if pos >= end:
            break
        if pos > cuts[-1]:
            cuts.append(pos)
    cuts.append(end)
    return cuts


def cut_shares(data: bytes, n: int) -> list[bytes]:
    """``data`` cut at line ends into at most ``n`` pieces of about equal size, in order."""
    cuts = _cut_points(0, len(data), n, lambda pos: data.find(b"\n", pos) + 1 or len(data))
    return [data[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]


class _Range:
    """Bytes ``start``..``end`` of a file, read by offset (``os.pread``), so that each worker
    reads its own share of a file on stdin without moving a shared file position."""

    def __init__(self, fd: int, start: int, end: int) -> None:
        self.fd, self.pos, self.end = fd, start, end

    def read(self, n: int) -> bytes:
        n = min(n, self.end - self.pos)
        data = os.pread(self.fd, n, self.pos) if n > 0 else b""
        self.pos += len(data)
        return data


def _file_region(stream: Any) -> tuple[int, int] | None:
    """``(position, size)`` of a regular file on ``stream``; None for a pipe or terminal."""
    try:
        fd = stream.fileno()
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        return os.lseek(fd, 0, os.SEEK_CUR), st.st_size
    except (OSError, ValueError):  # no file descriptor, or one that cannot seek
        return None


def file_cuts(fd: int, start: int, end: int, n: int) -> list[int]:
    """:func:`_cut_points` of bytes ``start``..``end`` of a file, read by offset."""

    def after_line_end(pos: int) -> int:
        while pos < end:
            block = os.pread(fd, 1 << 16, pos)
            if not block:
                break
            line_end = block.find(b"\n")
            if line_end >= 0:
                return pos + line_end + 1
            pos += len(block)
        return end

    return _cut_points(start, end, n, after_line_end)


def file_share(fd: int, start: int, end: int) -> Callable[[], Iterator[bytes]]:
    """A share of a file: its pieces read afresh each time it is asked for."""
    return lambda: chunks(_Range(fd, start, end), ROUND)


def in_memory(data: bytes) -> Callable[[], tuple[Any, ...]]:
    """A share already in memory."""
    return lambda: (data,)


# --------------------------------------------------------------------------- workers
def score_shares(sources: list[Any], rules: Any, out: Any,
                 scorer: Callable[..., Any] = score_chunk) -> None:
    """Write the scores of every share of the input to ``out``, in order. A share is a
    function giving its input pieces (bytes of whole lines); the first is scored here while
    a forked child scores each other one into a spool. Forking shares the loaded engine and
    its warm memos with no copying or pickling. A child that dies (killed, out of memory)
    has its share scored here instead, from the start, so no line is lost or answered twice."""
    children = []
    for source in sources[1:]:
        spool = tempfile.TemporaryFile()
        pid = os.fork()
        if pid == 0:  # the child: score, write, leave without running the parent's exit code
            code = 1
            try:
                for data in source():
                    spool.write(scorer(data, rules))
                spool.flush()
                code = 0
            finally:
                os._exit(code)
        children.append((pid, spool, source))
    try:
        for data in sources[0]():
            out.write(scorer(data, rules))
        while children:
            pid, spool, source = children[0]
            _, status = os.waitpid(pid, 0)
            children.pop(0)
            with spool:
                if status == 0:
                    spool.seek(0)
                    while block := spool.read(1 << 20):
                        out.write(block)
                else:
                    for data in source():
                        out.write(scorer(data, rules))
    except BaseException:  # the reader went away (`| head`), Ctrl-C: stop the children too
        for pid, spool, _source in children:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            spool.close()
        raise


def serve(rules: Rules, workers: int, stdin: Any, stdout: Any) -> None:
    """Score binary ``stdin`` to binary ``stdout``: one output line per input line, in order.

    With ``workers`` above 1, a file on stdin is cut into that many shares, each read and
    scored by its own process; piped input is read a round at a time and each round shared
    out the same way. Small input is scored here."""
    region = _file_region(stdin)
    if region is not None and workers > 1:
        fd, (start, end) = stdin.fileno(), region
        cuts = file_cuts(fd, start, end, max(1, min(workers, (end - start) // MIN_SHARE)))
        score_shares([file_share(fd, a, b) for a, b in zip(cuts, cuts[1:], strict=False)],
                     rules, stdout)
    else:
        for data in chunks(stdin, ROUND):
            n = min(workers, len(data) // MIN_SHARE)
            if n < 2:
                stdout.write(score_chunk(data, rules))
            else:
                score_shares([in_memory(x) for x in cut_shares(data, n)], rules, stdout)
    stdout.flush()


def main(rules: Rules, workers: int) -> NoReturn:
    """The batch as this process's whole job: stdin to stdout, then leave at once.

    Scoring makes no reference cycles (tests/scoring/test_batch_cli.py checks), so reference
    counting frees everything and the cyclic collector's passes over each line's many small
    objects (about a tenth of the run) find nothing: it is switched off. Once the output is
    flushed, the process ends without the interpreter's teardown, which would free every
    memoized reading one by one and takes a visible share of a short batch."""
    gc.disable()
    serve(rules, max(1, workers or min(os.cpu_count() or 1, 4)), sys.stdin.buffer,
          sys.stdout.buffer)
    sys.stderr.flush()
    os._exit(0)
