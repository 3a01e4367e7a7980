"""3A (002 「北を抜くと一発, 天和, 地和, 人和の権利は消滅します。」): a tablet's tenhou
picked beside a North set aside is refused in the player's words, and nothing is recorded."""

from __future__ import annotations

from tests.support.web import bearer, record, start

TENHOU = {"event": "win", "winners": [{"seat": 0, "yaku": [{"id": "tenhou", "yakuman": 1}],
                                       "nukidora": 1}]}


def test_tenhou_beside_a_north_set_aside_is_refused_in_words(app, client):
    h = bearer(app, "t3")
    start(client, h, table="t3", players=(1, 2, 3))
    r = record(client, h, TENHOU, 1, table="t3", expect=422)
    assert "nukidora" in r["error"]["message"] and "tenhou" in r["error"]["message"]
    ja = client.post("/api/tables/t3/hands", headers={**h, "Accept-Language": "ja"}, json={
        "event": TENHOU, "expected_seq": 1, "idempotency_key": "ja-try-0001"})
    assert ja.status_code == 422 and "天和" in ja.get_json()["error"]["message"]
    kept = {"event": "win", "winners": [{"seat": 0, "yaku": [{"id": "tenhou", "yakuman": 1}]}]}
    assert record(client, h, kept, 1, table="t3")["game"]["status"] == "live"
