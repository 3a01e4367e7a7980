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
    "tablet.no_riichi": ("この局はリーチできません",
                         "This seat cannot declare riichi in this hand"),
    "tablet.chi": ("チー", "Chi"),
    "tablet.pon": ("ポン", "Pon"),
    "tablet.minkan": ("明槓", "Open kan"),
    "tablet.ankan": ("暗槓", "Closed kan"),
    "tablet.table_mode": ("卓のモード", "Table mode"),
    "tablet.to": ("受取人 (任意)", "Paid to (optional)"),
    # --- staff console, sign-in, pairing (W2)
    "staff.console": ("スタッフ画面", "Staff console"),
    "staff.floor": ("フロア", "Floor"),
    "staff.games": ("対局", "Games"),
    "staff.players": ("会員", "Players"),
    "staff.tables": ("卓", "Tables"),
    "staff.rulesets": ("ルール", "Rule sets"),
    "staff.tablets": ("タブレット", "Tablets"),
    "staff.accounts": ("スタッフ", "Staff accounts"),
    "staff.audit": ("操作履歴", "Audit log"),
    "staff.leaderboard": ("成績表", "Leaderboard"),
    "staff.logout": ("ログアウト", "Sign out"),
    "staff.login": ("スタッフログイン", "Staff sign-in"),
    "staff.name": ("名前", "Name"),
    "staff.password": ("パスワード", "Password"),
    "staff.daemon": ("卓制御デーモン", "Table daemon"),
    "staff.running": ("稼働中", "running"),
    "staff.not_running": ("停止中", "not running"),
    "staff.connected": ("接続中", "Connected"),
    "staff.disconnected": ("未接続", "Not connected"),
    "staff.mode": ("モード", "Mode"),
    "staff.cycle": ("サイクル", "Cycle"),
    "staff.lid": ("フタ", "Lid"),
    "staff.errors": ("エラー", "Errors"),
    "staff.game": ("対局", "Game"),
    "staff.last_command": ("最後の操作", "Last command"),
    "staff.last_event": ("卓からの通知", "Last table event"),
    "staff.change_mode": ("モード変更", "Change mode"),
    "staff.cmd.cycle": ("サイクル実行", "Run a cycle"),
    "staff.cmd.check": ("点検", "Check"),
    "staff.cmd.points": ("点数読取", "Read points"),
    "staff.member_no": ("会員番号", "Member no."),
    "staff.add": ("追加", "Add"),
    "staff.status": ("状態", "Status"),
    "staff.active": ("有効", "Active"),
    "staff.retired": ("休会", "Retired"),
    "staff.retire": ("休会にする", "Retire"),
    "staff.restore": ("有効にする", "Restore"),
    "staff.save_table": ("卓を追加・変更", "Add or change a table"),
    "staff.save": ("保存", "Save"),
    "staff.title": ("名称", "Title"),
    "staff.preset": ("標準", "Preset"),
    "staff.club_rules": ("当店ルール", "Club rules"),
    "staff.preset_readonly": (
        "標準ルールは変更できません。extends で引き継いだ当店ルールを作ってください。",
        "Presets cannot be changed: make a club rule set that extends one."),
    "staff.edit_rules": ("当店ルールの作成・編集", "Create or edit a club rule set"),
    "staff.rules_help": (
        "TOML で書きます。1行目に extends = \"プリセット名\" を書き、変える項目だけを指定します。",
        "Write TOML: start with extends = \"preset\" and set only what differs."),
    "staff.resolved": ("全設定値", "Every switch, resolved"),
    "staff.upload_toml": ("またはファイルを選択 (.toml)", "or upload a file (.toml)"),
    "staff.disabled": ("無効", "Disabled"),
    "staff.cycle_state.idle": ("待機中", "idle"),
    "staff.cycle_state.cycling": ("洗牌中", "shuffling"),
    "staff.cycle_state.walls_up": ("山上がり", "walls up"),
    "staff.cycle_state.dice_rolled": ("サイコロ済み", "dice rolled"),
    "staff.cycle_state.dealt": ("配牌済み", "dealt"),
    "staff.cycle_state.failed": ("停止（エラー）", "stopped (error)"),
    "staff.lid_state.open": ("開", "open"),
    "staff.lid_state.closed": ("閉", "closed"),
    "staff.disable": ("無効にする", "Disable"),
    "staff.enable": ("有効にする", "Enable"),
    "staff.pair_qr": ("タブレット登録用QRコード", "Tablet pairing QR code"),
    "staff.pair_once": ("このコードは1回だけ使えます（24時間有効）。",
                        "This code works once (for 24 hours)."),
    "staff.label": ("メモ", "Label"),
    "staff.issue_qr": ("QRコード発行", "Issue a QR code"),
    "staff.last_seen": ("最終利用", "Last seen"),
    "staff.tablet.revoked": ("解除済み", "Unpaired"),
    "staff.tablet.paired": ("登録済み", "Paired"),
    "staff.tablet.waiting": ("登録待ち", "Waiting"),
    "staff.revoke": ("登録解除", "Unpair"),
    "staff.last_login": ("最終ログイン", "Last sign-in"),
    "staff.reset_password": ("パスワード再設定", "Reset password"),
    "staff.status.all": ("すべて", "All"),
    "staff.status.live": ("対局中", "Live"),
    "staff.status.finished": ("終了", "Finished"),
    "staff.status.void": ("無効", "Void"),
    "staff.started": ("開始", "Started"),
    "staff.entry": ("記録", "Entry"),
    "staff.correct": ("訂正", "Correct"),
    "staff.remove": ("取消", "Remove"),
    "staff.reason": ("理由", "Reason"),
    "staff.void_game": ("対局を無効にする", "Void this game"),
    "staff.when": ("日時", "When"),
    "staff.who": ("担当", "Who"),
    "staff.action": ("操作", "Action"),
    "staff.target": ("対象", "Target"),
    "pair.title": ("タブレット登録", "Pair this tablet"),
    "pair.question": ("このタブレットを登録します:", "Pair this tablet with"),
    "pair.confirm": ("登録する", "Pair"),
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
