"""The console's camera page on a real club file: the daemon's registration puts the
club file's camera in the store, the page shows the picture and what the reader reads,
staff save a region (audited), and a bad region is refused in words, changing nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("cv2")

import cv2  # noqa: E402

from club.accounts import create_staff  # noqa: E402
from club.db import connect  # noqa: E402
from hardware_sim.display import Conditions, render  # noqa: E402
from tablectl import camera_store  # noqa: E402
from tablectl.config import load_config  # noqa: E402
from tablectl.store import Journal  # noqa: E402
from tests.web.staff_support import staff_client  # noqa: E402
from web import create_app  # noqa: E402


@pytest.fixture
def club(tmp_path):
    img, region = render("06", Conditions(tilt=8), seed=4, size=(320, 240))
    cv2.imwrite(str(tmp_path / "camera-t5.png"), img)
    (tmp_path / "club.toml").write_text(
        'db = "jantaku.db"\n[[tables]]\nid = "t5"\nurl = "sim://"\n'
        'camera = "camera-t5.png"\n[[tables]]\nid = "t6"\nurl = "sim://"\n', encoding="utf-8")
    cfg = load_config(tmp_path / "club.toml")
    Journal(cfg.db).register_tables([{**t.as_dict(), "commands": []} for t in cfg.tables])
    app = create_app({"DATABASE": cfg.db, "SECRET_KEY": "x", "TESTING": True})
    db = connect(cfg.db)
    try:
        create_staff(db, "mika", "mahjong-club")
    finally:
        db.conn.close()
    return app, cfg.db, region


def post(client, path, **fields):
    token = client.get("/auth/csrf").get_json()["csrf_token"]
    return client.post(path, json=fields, headers={"Accept": "application/json",
                                                   "X-CSRF-Token": token})


def test_camera_page_shows_the_picture_and_keeps_the_region(club):
    app, db_path, region = club
    client = staff_client(app, "mika", "mahjong-club")
    page = client.get("/staff/tables/t5/camera").get_data(as_text=True)
    assert 'data-testid="camera-picture"' in page and "範囲はまだ設定されていません" in page
    pic = client.get("/staff/tables/t5/camera.png")
    assert pic.status_code == 200 and pic.mimetype == "image/png"
    assert pic.data[:8] == b"\x89PNG\r\n\x1a\n"
    r = client.get("/staff/tables/t5/camera.json").get_json()
    assert r["region"] is None and r["size"] == [320, 240] and r["reading"] is None

    corners = [[round(x, 1), round(y, 1)] for x, y in region]
    r = post(client, "/staff/tables/t5/camera", region=corners)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.get_json()["region"] == corners
    r = client.get("/staff/tables/t5/camera.json?lang=en").get_json()
    assert r["reading"] == {"number": 6, "certain": True, "dark": False}
    assert r["reading_text"] == "06 (sure)" and r["from_console"] and r["updated_by"]
    cam = camera_store.open_table_camera(db_path, "t5")
    assert cam is not None and cam.read().number == 6
    audit = client.get("/staff/audit?lang=ja").get_data(as_text=True)
    assert "カメラの数字範囲の設定" in audit


def test_camera_taken_out_of_the_club_file_is_gone_from_the_page(club, tmp_path):
    app, db_path, _ = club
    (tmp_path / "club.toml").write_text(
        'db = "jantaku.db"\n[[tables]]\nid = "t5"\nurl = "sim://"\n', encoding="utf-8")
    cfg = load_config(tmp_path / "club.toml")
    Journal(cfg.db).register_tables([{**t.as_dict(), "commands": []} for t in cfg.tables])
    assert camera_store.camera_of(db_path, "t5") is None
    client = staff_client(app, "mika", "mahjong-club")
    assert client.get("/staff/tables/t5/camera").status_code == 404


@pytest.mark.parametrize("region", [
    [[0, 0], [10, 0], [10, 10]],
    [[0, 0], [0, 50], [100, 50], [100, 0]],         # anticlockwise
    [[0, 0], [100, 0], [100, 50], [0, 99999]],
    "not corners",
    [[0, 0], [100, True], [100, 50], [0, 50]],
])
def test_camera_page_refuses_a_bad_region_in_words(club, region):
    app, db_path, _ = club
    client = staff_client(app, "mika", "mahjong-club")
    r = post(client, "/staff/tables/t5/camera", region=region)
    assert r.status_code == 422
    assert "時計回り" in r.get_json()["error"]["message"]
    assert camera_store.camera_of(db_path, "t5")["region"] is None


def test_camera_page_of_a_table_without_a_camera_says_how_to_add_one(club):
    app, _, _ = club
    client = staff_client(app, "mika", "mahjong-club")
    r = client.get("/staff/tables/t6/camera?lang=en")
    assert r.status_code == 404 and "/dev/video0" in r.get_data(as_text=True)
    r = post(client, "/staff/tables/t6/camera", region=[[0, 0], [100, 0], [100, 50], [0, 50]])
    assert r.status_code == 404


def test_camera_page_without_a_picture_says_so(club, tmp_path):
    app, _, _ = club
    (tmp_path / "camera-t5.png").unlink()
    client = staff_client(app, "mika", "mahjong-club")
    page = client.get("/staff/tables/t5/camera?lang=en").get_data(as_text=True)
    assert 'data-testid="camera-error"' in page and "does not exist" in page
    assert client.get("/staff/tables/t5/camera.png").status_code == 503
