"""OpenAPI entries of the desk's side of members across branches (web/staff/chain_desk.py):
a member's chain member id, a card from another branch, and merges staff confirm."""

from __future__ import annotations

from web.api.openapi.shared import STR, obj, op
from web.api.openapi.staff import PLAYER

CHAIN_PATHS: dict = {
    "/staff/players/{player_id}/chain": {"get": op(
        "a member's chain member id (link: its newest chain_links row, or null); query "
        "other (another player's number here, or a member card's QR text or chain id) adds "
        "the proposed merge: both records' names, member numbers, chain ids and games, the "
        "chain id both will carry and the check to confirm it with",
        params=[PLAYER], errors=("400", "404"))},
    "/staff/players/{player_id}/chain/issue": {"post": op(
        "give a member a chain member id (JM- and 16 base32 letters; the one they have if "
        "any; guests get none); audited", params=[PLAYER], errors=("400", "404"))},
    "/staff/players/{player_id}/chain/claim": {"post": op(
        "link a member card from another branch (card: its QR text or chain id) to this "
        "member; 409 merge_needed when the member has another id or another player here "
        "holds this one (a merge, which staff confirm); audited", params=[PLAYER],
        errors=("400", "404", "409"), body=obj(["card"], card=STR))},
    "/staff/players/{player_id}/chain/merge": {"post": op(
        "confirm the merge shown by GET ?other= (other, its check, and a reason): both "
        "records carry one chain id, a second player here is marked merged into this one; "
        "the hand log is not touched; 409 out_of_date when the records changed since; "
        "audited", params=[PLAYER], errors=("400", "404", "409"),
        body=obj(["other", "check", "reason"], other=STR, check=STR, reason=STR))},
}
