"""OpenAPI entries of the daily report and the standings settings (``web.staff.report``),
merged into the app's document beside the other staff endpoints."""

from __future__ import annotations

from .openapi import STR, _obj, _op, _path

DAY = {"name": "day", "in": "query", "required": False,
       "schema": {"type": "string", "format": "date"},
       "description": "the club day, YYYY-MM-DD (default: today's)"}

REPORT_PATHS: dict = {
    "/staff/report": {"get": _op(
        "the daily report (日報) of a club day: tables, rule_sets and total rows (games, "
        "players, minutes, occupancy, fees, top prizes, chips), every player's account "
        "(fee, prize, chips, chip_yen, net in yen), summary, unfinished games",
        params=[DAY], errors=("400",))},
    "/staff/report/{sheet}.csv": {"get": _op(
        "one part of the daily report as CSV for Excel (UTF-8 with BOM, Japanese headings, "
        "yen with separators, a total row): tables, rules or accounts",
        params=[_path("sheet", STR), DAY], errors=("400", "404"))},
    "/staff/report/print": {"get": _op(
        "the daily report as one printable HTML page", params=[DAY], errors=("400",))},
    "/staff/standings": {"get": _op(
        "the club's dan table and seasons as stored TOML (null: not set)", errors=())},
    "/staff/standings/{name}": {"post": _op(
        "replace the dan table (name = dan: every game is re-rated under it) or the seasons "
        "(name = seasons) with TOML; an empty text removes it; a refusal (422, "
        "invalid_settings) names the key at fault in error.field and changes nothing",
        params=[_path("name", STR)], errors=("400", "404", "422"),
        body=_obj(["toml"], toml=STR))},
}
