"""A throwaway PostgreSQL cluster for the tests: ``initdb`` and ``pg_ctl`` from the installed
package's own bin folder, in a temporary folder, listening only on a Unix socket in that
folder (and, for the tests that cut the network, on a loopback port), trust auth.

PostgreSQL refuses to run as root and CI runs as root: there the cluster runs as the
``postgres`` user the Debian package creates (``runuser -u postgres``), in a folder it
owns. As any other user it runs as that user.

Each test gets its own database, made by ``CREATE DATABASE ... TEMPLATE`` from an empty
template, so tests share no state. Without PostgreSQL (or psycopg) the tests that need it
are skipped on a developer's machine and fail where ``JANTAKU_REQUIRE_POSTGRES=1``
(``.ci/run`` sets it).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REQUIRE_ENV = "JANTAKU_REQUIRE_POSTGRES"
TEMPLATE = "jantaku_template"


def bindir() -> Path | None:
    """The PostgreSQL server's bin folder (``initdb``, ``pg_ctl``), or None if not installed."""
    candidates: list[str] = []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True,
                                 timeout=30, check=True).stdout.strip()
            candidates.append(out)
        except (subprocess.SubprocessError, OSError):
            pass
    # Debian's pg_config (libpq-dev) names /usr/bin, where only the client wrappers are:
    # the server's own programs live in the versioned folder
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit()
                         else 0, reverse=True)
    for c in candidates:
        if c and os.access(os.path.join(c, "initdb"), os.X_OK) and \
                os.access(os.path.join(c, "pg_ctl"), os.X_OK):
            return Path(c)
    return None


def missing_reason() -> str | None:
    """Why the PostgreSQL tests cannot run here (None when they can)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[test]')"
    if bindir() is None:
        return "PostgreSQL's server (Debian's postgresql package) is not installed"
    if os.geteuid() == 0 and not _user_exists("postgres"):
        return "running as root and there is no postgres user to run the cluster as"
    return None


def skip_or_fail() -> None:
    """Skip the calling test when PostgreSQL cannot run here, or fail it when
    ``JANTAKU_REQUIRE_POSTGRES=1`` (CI) says it must."""
    import pytest

    reason = missing_reason()
    if reason is None:
        return
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"PostgreSQL is required ({REQUIRE_ENV}=1) but {reason}")
    pytest.skip(reason)


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One running cluster; :meth:`new_database` hands each test its own database."""

    def __init__(self) -> None:
        bd = bindir()
        if bd is None:
            raise RuntimeError("PostgreSQL is not installed")
        self.bindir = bd
        self.root = Path(tempfile.mkdtemp(prefix="jantaku-pg-"))
        self.data = self.root / "data"
        self.socket_dir = self.root / "sock"
        self.socket_dir.mkdir()
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self.user = "postgres" if self.as_root else None
        self._names = itertools.count(1)
        if self.as_root:
            import pwd

            pw = pwd.getpwnam("postgres")
            for p in (self.root, self.socket_dir):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            os.chmod(self.root, 0o755)

    def _run(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              cwd=self.root, check=False)

    def start(self) -> None:
        """initdb, then start on the socket folder and a loopback port; fail in words."""
        r = self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                      "-E", "UTF8", "--locale=C", "--no-sync")
        if r.returncode:
            raise RuntimeError(f"initdb failed: {r.stderr.strip() or r.stdout.strip()}")
        opts = (f"-k {self.socket_dir} -p {self.port} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c max_connections=60 -c shared_buffers=32MB")
        r = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "log"),
                      "-o", opts, "-w", "-t", "90", "start")
        if r.returncode:
            log = (self.root / "log").read_text(errors="replace")[-2000:] \
                if (self.root / "log").exists() else ""
            raise RuntimeError(f"pg_ctl start failed: {r.stderr.strip()} {log}")
        with self.connect("postgres") as conn:
            conn.execute(f"CREATE DATABASE {TEMPLATE}")

    def stop(self) -> None:
        """Stop the cluster (fast shutdown) and remove its folder."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop",
                      timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, dbname: str, tcp: bool = False, port: int | None = None) -> str:
        """A libpq URL for ``dbname``: on the Unix socket, or on loopback TCP (``port``
        overrides the cluster's own, for a relay between the client and the server)."""
        if tcp:
            return f"postgresql://postgres@127.0.0.1:{port or self.port}/{dbname}"
        return f"postgresql://postgres@/{dbname}?host={self.socket_dir}&port={self.port}"

    def connect(self, dbname: str):
        """An autocommit psycopg connection to ``dbname`` (the caller closes it)."""
        import psycopg

        return psycopg.connect(self.url(dbname), autocommit=True)

    def new_database(self, prefix: str = "t") -> str:
        """A fresh, empty database (a copy of the template) and its URL."""
        name = f"{prefix}_{os.getpid()}_{next(self._names)}"
        for attempt in range(20):
            try:
                with self.connect("postgres") as conn:
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
                break
            except Exception as e:  # the template busy for a moment: try again
                if "being accessed" not in str(e) or attempt == 19:
                    raise
                time.sleep(0.1)
        return self.url(name)
