"""Japanese first, English on a switch.

``t(key)`` is a Jinja global (and a Python function) that returns the string
for the current language: ``?lang=en`` / ``?lang=ja`` sets it for the session,
otherwise Japanese. Add keys to ``STRINGS`` as ``"key": ("日本語", "English")``.
"""

from __future__ import annotations

from flask import g, has_request_context, request, session

LANGS = ("ja", "en")
DEFAULT_LANG = "ja"

STRINGS: dict[str, tuple[str, str]] = {
    # --- shared (W1)
    "app.title": ("雀卓", "Jantaku"),
    "lang.switch": ("English", "日本語"),
    "error.title": ("エラー", "Error"),
    "error.back": ("戻る", "Back"),
    "ok": ("OK", "OK"),
    "cancel": ("キャンセル", "Cancel"),
    "confirm": ("確定", "Confirm"),
    "close": ("閉じる", "Close"),
    # --- tablet (W1)
    "tablet.table": ("卓", "Table"),
    "tablet.no_game": ("対局はありません", "No game in progress"),
    "tablet.start_game": ("対局開始", "Start a game"),
    "tablet.rules": ("ルール", "Rules"),
    "tablet.players": ("プレイヤー", "Players"),
    "tablet.seat": ("席", "Seat"),
    "tablet.guest": ("ゲスト", "Guest"),
    "tablet.add_guest": ("ゲスト追加", "Add guest"),
    "tablet.three_players": ("三人打ち", "Three players"),
    "tablet.four_players": ("四人打ち", "Four players"),
    "tablet.round": ("局", "Round"),
    "tablet.honba": ("本場", "Honba"),
    "tablet.kyoutaku": ("供託", "Deposits"),
    "tablet.dealer": ("親", "Dealer"),
    "tablet.riichi": ("リーチ", "Riichi"),
    "tablet.ron": ("ロン", "Ron"),
    "tablet.tsumo": ("ツモ", "Tsumo"),
    "tablet.draw": ("流局", "Draw"),
    "tablet.abort": ("途中流局", "Abortive draw"),
    "tablet.chombo": ("チョンボ", "Chombo"),
    "tablet.penalty": ("罰符", "Penalty"),
    "tablet.end": ("終了", "End game"),
    "tablet.undo": ("一局戻す", "Undo last hand"),
    "tablet.winner": ("和了者", "Winner"),
    "tablet.winners": ("和了者", "Winners"),
    "tablet.discarder": ("放銃者", "Discarder"),
    "tablet.tenpai": ("聴牌", "Tenpai"),
    "tablet.nagashi": ("流し満貫", "Nagashi mangan"),
    "tablet.pao": ("責任払い", "Pao"),
    "tablet.han": ("翻", "Han"),
    "tablet.fu": ("符", "Fu"),
    "tablet.yakuman": ("役満", "Yakuman"),
    "tablet.chips": ("チップ", "Chips"),
    "tablet.by_hanfu": ("翻・符で入力", "Enter han and fu"),
    "tablet.by_tiles": ("牌で入力", "Enter the tiles"),
    "tablet.hand_tiles": ("手牌", "Hand"),
    "tablet.win_tile": ("和了牌", "Winning tile"),
    "tablet.dora": ("ドラ表示", "Dora indicators"),
    "tablet.ura": ("裏ドラ表示", "Ura indicators"),
    "tablet.preview": ("支払いを確認", "Preview payments"),
    "tablet.record": ("記録する", "Record"),
    "tablet.settlement": ("精算", "Settlement"),
    "tablet.confirm_result": ("結果を確認しました", "I confirm this result"),
    "tablet.confirmed": ("確認済み", "Confirmed"),
    "tablet.ic_points": ("卓の点数表示", "Table's own reading"),
    "tablet.mismatch": ("点数が一致しません", "Scores differ"),
    "tablet.score": ("点数", "Score"),
    "tablet.gap": ("差", "Gap"),
    "tablet.kind": ("種類", "Kind"),
    "tablet.points": ("点", "Points"),
    "tablet.rank": ("順位", "Rank"),
    "tablet.result": ("結果", "Result"),
    "tablet.uma": ("ウマ", "Uma"),
    "tablet.oka": ("オカ", "Oka"),
    "tablet.history": ("記録", "Hands so far"),
    "tablet.new_game": ("新しい対局", "New game"),
    "tablet.finished": ("終局", "Game over"),
    "tablet.already": ("既に記録されています", "Already recorded"),
    "tablet.offline": ("接続できません。再送します…", "No connection, retrying…"),
    "tablet.tsumo_short": ("ツモ", "Tsumo"),
    "tablet.kind.kyuushu": ("九種九牌", "Nine terminals"),
    "tablet.kind.suufon": ("四風連打", "Four winds"),
    "tablet.kind.suukan": ("四開槓", "Four kans"),
    "tablet.kind.suucha_riichi": ("四家立直", "Four riichi"),
    "tablet.kind.sanchahou": ("三家和", "Triple ron"),
    "tablet.kind.deposit_1000": ("供託1000点", "1,000 to the pot"),
    "tablet.kind.agari_houki": ("和了放棄", "Barred from winning"),
    "tablet.kind.points": ("点数", "Points"),
}


def current_lang() -> str:
    """The language of this request: ``?lang=`` (remembered in the session), else Japanese."""
    if not has_request_context():
        return DEFAULT_LANG
    if "lang" in g:
        return g.lang
    lang = request.args.get("lang")
    if lang in LANGS:
        session["lang"] = lang
    else:
        lang = session.get("lang", DEFAULT_LANG)
        if lang not in LANGS:
            lang = DEFAULT_LANG
    g.lang = lang
    return lang


def t(key: str, lang: str | None = None) -> str:
    """The text for ``key`` in the current language (the key itself if unknown)."""
    entry = STRINGS.get(key)
    if entry is None:
        return key
    return entry[LANGS.index(lang or current_lang())]


def init_app(app) -> None:
    app.jinja_env.globals["t"] = t
    app.jinja_env.globals["current_lang"] = current_lang
