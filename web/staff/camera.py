"""A table's camera on the console: its picture with the digits' region marked, the
reading of it, and the region staff drag once per table (audited).

* ``/staff/tables/<id>/camera``        the page (a script in ``static/staff-camera.js``)
* ``/staff/tables/<id>/camera.png``    the camera's picture now
* ``/staff/tables/<id>/camera.json``   the region in force and what the reader reads
* ``POST /staff/tables/<id>/camera``   keep a region (``region``: four [x, y] corners,
  clockwise from the top left; JSON, or the form's text of it)

The picture comes from where the daemon said (the club file's ``camera``): a V4L2
device is opened for one picture and closed; a picture file (the simulated table's
camera, a network camera's snapshot) is read as it is.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, jsonify, render_template
from flask.typing import ResponseReturnValue

from tablectl import camera_store
from tablectl.camera import MAX_PIXELS, CameraError, read_display
from web.errors import UserError
from web.i18n import current_lang, t
from web.limits import form_data
from web.security import actor_name, staff_required
from web.staff.common import bp, db_path, done, record
from web.staff.names import table_name


def _camera(table_id: str) -> dict:
    cam = camera_store.camera_of(db_path(), table_id)
    if cam is None:
        raise UserError("camera.none", status=404, code="no_camera", table=table_name(table_id))
    return cam


def _picture(source: str) -> Any:
    """One picture from the table's camera (UserError in words when there is none)."""
    try:
        from tablectl.camera import FileCamera, V4L2Camera
        whole = [(0, 0), (10_000, 0), (10_000, 10_000), (0, 10_000)]
        if source.startswith("/dev/"):
            cam = V4L2Camera(source, whole)
            try:
                return cam.frame()
            finally:
                cam.close()
        return FileCamera(source, whole).frame()
    except CameraError as e:
        raise UserError("camera.no_picture", status=503, code=e.code,
                        reason=e.text(current_lang())) from None


def _reading(table_id: str) -> dict:
    cam = _camera(table_id)
    out = {"region": cam["region"], "from_console": cam["from_console"],
           "updated_by": cam["updated_by"], "reading": None, "reading_text": None,
           "picture_error": None}
    try:
        img = _picture(cam["source"])
    except UserError as e:
        out["picture_error"] = e.message
        return out
    out["size"] = [int(img.shape[1]), int(img.shape[0])]
    if cam["region"] is not None:
        r = read_display(img, cam["region"])
        out["reading"] = {"number": r.number, "certain": r.certain, "dark": r.dark}
        if r.dark:
            key = "camera.read.dark" if r.certain else "camera.read.dark_unsure"
            out["reading_text"] = t(key)
        elif r.number is None:
            out["reading_text"] = t("camera.read.none")
        else:
            key = "camera.read.sure" if r.certain else "camera.read.unsure"
            out["reading_text"] = t(key, number=f"{r.number:02d}")
    return out


@bp.get("/tables/<table_id>/camera")
@staff_required
def camera_page(table_id: str) -> ResponseReturnValue:
    """The camera's picture with the digits' region marked; staff drag its corners."""
    return render_template("staff/camera.html", table_id=table_id,
                           tname=table_name(table_id), c=_reading(table_id))


@bp.get("/tables/<table_id>/camera.json")
@staff_required
def camera_json(table_id: str) -> ResponseReturnValue:
    return jsonify({"ok": True, **_reading(table_id)})


@bp.get("/tables/<table_id>/camera.png")
@staff_required
def camera_picture(table_id: str) -> ResponseReturnValue:
    import cv2

    img = _picture(_camera(table_id)["source"])
    ok, png = cv2.imencode(".png", img)
    if not ok:
        raise UserError("camera.no_picture", status=503, code="camera_no_picture",
                        reason="PNG")
    return Response(png.tobytes(), mimetype="image/png",
                    headers={"Cache-Control": "no-store"})


def _region_of(data: dict) -> list:
    raw = data.get("region")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raw = None
    if not (isinstance(raw, list) and all(
            isinstance(p, list) and len(p) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool)
                and 0 <= v <= MAX_PIXELS for v in p) for p in raw)):
        raise UserError("camera.bad_region", status=422, code="invalid_field",
                        details={"field": "region"})
    return raw


@bp.post("/tables/<table_id>/camera")
@staff_required
def camera_region(table_id: str) -> ResponseReturnValue:
    """Keep the digits' region of the table's camera (audited with the old and new)."""
    cam = _camera(table_id)
    region = _region_of(form_data())
    try:
        kept = camera_store.set_region(db_path(), table_id, region, actor_name())
    except ValueError:
        raise UserError("camera.bad_region", status=422, code="invalid_field",
                        details={"field": "region"}) from None
    record("camera.region", table_id, details={"before": cam["region"], "region": kept})
    return done(t("camera.saved"), "staff.camera_page", payload={"region": kept},
                table_id=table_id)
