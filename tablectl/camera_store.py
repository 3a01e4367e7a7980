"""Each table's camera in the shared store: where its picture comes from and the region
of its digits.

The daemon writes the club file's ``camera`` and ``camera_region`` at start
(:meth:`tablectl.store.Journal.register_tables`); staff drag the region on the
console's camera page once per table (:func:`set_region`, audited by the console).
The region staff set wins over the club file's; :func:`open_table_camera` gives a
driver the table's camera with the region in force.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

import clubdb

from .camera import FileCamera, V4L2Camera, check_region
from .store import DbPath, now, open_db


def camera_of(db_path: DbPath, table_id: str) -> dict[str, Any] | None:
    """``{"source", "region", "from_console", "updated_at", "updated_by"}`` of a table's
    camera (``region`` None: not set yet), or None when the table has no camera."""
    row = open_db(db_path).conn.execute(
        "SELECT source, file_region, region, updated_at, updated_by FROM table_cameras"
        " WHERE table_id = ?", (table_id,)).fetchone()
    if row is None or not row[0]:
        return None
    source, file_region, region, at, by = row
    chosen = region or file_region
    return {"source": source, "region": json.loads(chosen) if chosen else None,
            "from_console": region is not None, "updated_at": at, "updated_by": by}


def set_region(db_path: DbPath, table_id: str, region: Sequence[Sequence[float]],
               by: str) -> list[list[float]]:
    """Keep ``region`` (checked: ValueError with the reason) as the table's; returns it."""
    corners = [[round(x, 1), round(y, 1)] for x, y in check_region(region)]
    db = open_db(db_path)
    with clubdb.write_tx(db):
        db.conn.execute(
            "INSERT INTO table_cameras (table_id, region, updated_at, updated_by)"
            " VALUES (?, ?, ?, ?) ON CONFLICT(table_id) DO UPDATE SET region=excluded.region,"
            " updated_at=excluded.updated_at, updated_by=excluded.updated_by",
            (table_id, json.dumps(corners), now(), by))
    return corners


def set_source(db_path: DbPath, table_id: str, source: str) -> None:
    """Name a table's picture source (what the daemon does from the club file)."""
    db = open_db(db_path)
    with clubdb.write_tx(db):
        db.conn.execute(
            "INSERT INTO table_cameras (table_id, source, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT(table_id) DO UPDATE SET source=excluded.source", (table_id, source,
                                                                           now()))


def open_table_camera(db_path: DbPath, table_id: str) -> V4L2Camera | FileCamera | None:
    """The table's camera with the region in force; None without a camera or a region."""
    cam = camera_of(db_path, table_id)
    if cam is None or cam["region"] is None:
        return None
    if cam["source"].startswith("/dev/"):
        return V4L2Camera(cam["source"], cam["region"])
    return FileCamera(cam["source"], cam["region"])
