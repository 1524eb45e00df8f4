"""Every message of the interface (the terminal, and the browser table's ``web_*``), per language (Japanese by default, English with ``--lang en``).

Messages are ``str.format`` templates; the engine's own text (prompts, labels, refusal problems) is put into them as
it is, never translated or normalised."""

from __future__ import annotations

import re

__all__ = ["LANGS", "interface_words", "web_words", "no_field"]

LANGS = ("ja", "en")

_JA = {
    "help": (
        "選択肢の番号を入力してください。複数選ぶときは空白か読点（,）で区切ります。\n"
        "コマンド: help（この説明と、いまの判断の種類・ルール・選択肢の ID）、state（知っていることをすべて表示）、\n"
        "log（最近の語り）、standing（常時応答: 振り直しなどの反応を毎回たずねずに決めておく）、\n"
        "quit（保存して中断。trpg resume で再開できます）"
    ),
    "help_decision": "この判断: {kind}（{rule}）",
    "help_option": "  {n}. {label} [{id}]",
    "unchanged": "（状況は変わりません。全体は state で表示）",
    "standing_title": "常時応答（{name}）: 決めておいた反応は、たずねずにそのとおり処理されます",
    "standing_none": "（この席には常時応答にできる反応がありません）",
    "standing_row": "  {n}. {title}: {answer}",
    "standing_ask": "毎回たずねる",
    "standing_pick_window": "変える反応の番号（Enter で戻る）: ",
    "standing_pick_answer": "「{title}」をどうしますか（番号、Enter で戻る）: ",
    "standing_set": "常時応答: {title} → {answer}",
    "choose_one": "番号を入力（1〜{n}、help で説明）",
    "choose_range": "{lo}〜{hi} 個を選んでください。番号を空白か , で区切って入力",
    "choose_range_none": "（何も選ばないときは Enter）",
    "type_number": "1〜{n} の番号を入力してください（help で説明）",
    "unknown_options": "その番号の選択肢はありません: {bad}",
    "refused": "その答えは受け付けられません: {problem}",
    "no_narration": "（まだ語りはありません）",
    "nothing": "（表示するものはありません）",
    "note_required": "理由・宣言を一言> ",
    "note_optional": "理由・宣言を一言（Enter で省略）> ",
    "speech": "台詞（Enter で省略）> ",
    "payload_intro": "項目ごとに答えてください（まとめて JSON {...} を貼り付けても構いません）",
    "not_json": "JSON として読めません: {error}",
    "required_field": "この項目は必須です",
    "field_optional": "省略可",
    "field_default": "既定値 {value}",
    "field_list": "（{lo}〜{hi} 個、, で区切る）",
    "field_json_list": "（JSON のリスト: {shape}）",
    "field_text": "（{lo}〜{hi} 文字）",
    "field_number": "（{lo}〜{hi} の数）",
    "field_any": "",
    "err_choose": "次のどれかを選んでください: {values}",
    "err_not_whole": "{line!r} は整数ではありません",
    "err_not_number": "{line!r} は数ではありません",
    "err_yes_no": "はい か いいえ で答えてください",
    "err_length": "{lo}〜{hi} 文字で書いてください",
    "err_small": "{num} は小さすぎます（{lo} 以上）",
    "err_big": "{num} は大きすぎます（{hi} 以下）",
    "err_small_ex": "{num} は小さすぎます（{lo} より大きく）",
    "err_big_ex": "{num} は大きすぎます（{hi} より小さく）",
    "prompt": "> ",
    "turn": "{name} の判断",
    "sheet_title": "シート",
    "state_title": "{name} の知っていること",
    "end": "セッション終了",
    "summary": "判断 {decisions} 回・ダイス {rolls} 回",
    "fallbacks": "スクリプトによる代理回答 {n} 回",
    "log_file": "ログ {path}",
    "saved": "保存しました。再開するには trpg resume {log}",
    "interrupted": "中断しました（ログは保存済み）。再開するには trpg resume {log}",
    "resumed": "{log} を判断 #{seq} から再開します",
    "title_line": "{title} — シード {seed}、ログ {log}",
    "campaign_saved": "キャンペーンを {path} に保存しました（プレイしたセッション {n}）",
    # the browser table (trpg serve)
    "web_app": "TRPG テーブル",
    "web_new_table": "新しい卓",
    "web_scenario": "シナリオ",
    "web_seed": "シード（空欄: おまかせ）",
    "web_human": "あなたの席",
    "web_others": "ほかの席",
    "web_start": "卓を立てる",
    "web_logs": "保存された卓",
    "web_resume": "再開する",
    "web_story": "物語を読む",
    "web_finished": "終了",
    "web_unfinished": "途中",
    "web_waiting": "ほかの席が考えています…",
    "web_your_turn": "{name} の判断",
    "web_submit": "決定",
    "web_suggested": "おすすめ",
    "web_pick": "{lo}〜{hi} 個を選ぶ",
    "web_note_required": "ひとこと（必須）",
    "web_note_optional": "ひとこと（任意）",
    "web_speech": "セリフ（任意）",
    "web_ended": "セッション終了",
    "web_log": "ログ",
    "web_back": "卓の一覧へ",
    "web_stale": "この判断にはもう答えています。",
    "web_sheet": "あなたの知っていること",
    "web_failed": "卓が止まりました",
    "web_human_help": "first_pc（最初の PC）、pcs（PC 全員）、gm、キャラクター ID",
    "web_others_help": "例: all=scripted、gm=llm、npcs=random（trpg play の --seat と同じ）",
    "web_table_of": "{title} — シード {seed}",
    "web_nothing": "まだ何も起きていません。",
    "web_standing": "常時応答",
    "web_standing_help": "振り直しなどの反応を、毎回たずねずに決めておけます（いつでも変えられます）。",
    "web_standing_save": "保存",
    "web_standing_ask": "毎回たずねる",
    "web_standing_saved": "保存しました。次の反応から使われます。",
}

_EN = {
    "help": (
        "Answer with the number of an option; for several, separate them with spaces or commas.\n"
        "Commands: help (this text, with the decision's kind, rule and option ids), state (show what you know),\n"
        "log (recent narration), standing (standing answers: settle reactions such as rerolls once instead of\n"
        "being asked each time), quit (save and stop; trpg resume carries on)"
    ),
    "help_decision": "this decision: {kind} ({rule})",
    "help_option": "  {n}. {label} [{id}]",
    "unchanged": "(state unchanged; type `state` to see it)",
    "standing_title": "Standing answers ({name}): a reaction settled here is resolved without asking",
    "standing_none": "(this seat has no reaction that can be settled in advance)",
    "standing_row": "  {n}. {title}: {answer}",
    "standing_ask": "ask every time",
    "standing_pick_window": "number of the reaction to change (Enter: back): ",
    "standing_pick_answer": "what for “{title}” (number, Enter: back): ",
    "standing_set": "standing answer: {title} → {answer}",
    "choose_one": "type a number (1-{n}, or help)",
    "choose_range": "choose {lo} to {hi}, separated by spaces or commas",
    "choose_range_none": " (Enter for none)",
    "type_number": "type a number 1-{n} (or help)",
    "unknown_options": "unknown option(s): {bad}",
    "refused": "not allowed: {problem}",
    "no_narration": "(no narration yet)",
    "nothing": "(nothing to show)",
    "note_required": "reason or declaration> ",
    "note_optional": "reason or declaration (Enter to skip)> ",
    "speech": "say something (Enter to skip)> ",
    "payload_intro": "answer field by field, or paste the whole answer as JSON {...}",
    "not_json": "not JSON: {error}",
    "required_field": "this field is required",
    "field_optional": "optional",
    "field_default": "default {value}",
    "field_list": "({lo}..{hi} of, separated by commas)",
    "field_json_list": "(a JSON list of {shape})",
    "field_text": "(text {lo}..{hi})",
    "field_number": "(number {lo}..{hi})",
    "field_any": "",
    "err_choose": "choose one of: {values}",
    "err_not_whole": "{line!r} is not a whole number",
    "err_not_number": "{line!r} is not a number",
    "err_yes_no": "answer y or n",
    "err_length": "write {lo} to {hi} characters",
    "err_small": "{num} is too small: at least {lo}",
    "err_big": "{num} is too big: at most {hi}",
    "err_small_ex": "{num} is too small: more than {lo}",
    "err_big_ex": "{num} is too big: less than {hi}",
    "prompt": "> ",
    "turn": "{name} decides",
    "sheet_title": "sheet",
    "state_title": "what {name} knows",
    "end": "end",
    "summary": "{decisions} decisions, {rolls} rolls",
    "fallbacks": "{n} scripted fallbacks",
    "log_file": "log {path}",
    "saved": "saved: resume with trpg resume {log}",
    "interrupted": "interrupted: the log is saved; resume with trpg resume {log}",
    "resumed": "resumed {log} at decision #{seq}",
    "title_line": "{title} — seed {seed}, log {log}",
    "campaign_saved": "campaign saved to {path} (sessions played: {n})",
    # the browser table (trpg serve)
    "web_app": "TRPG table",
    "web_new_table": "New table",
    "web_scenario": "Scenario",
    "web_seed": "Seed (empty: random)",
    "web_human": "Your seat",
    "web_others": "Other seats",
    "web_start": "Start",
    "web_logs": "Saved tables",
    "web_resume": "Resume",
    "web_story": "Read the story",
    "web_finished": "finished",
    "web_unfinished": "in progress",
    "web_waiting": "The other seats are thinking…",
    "web_your_turn": "{name}'s decision",
    "web_submit": "Decide",
    "web_suggested": "suggested",
    "web_pick": "choose {lo} to {hi}",
    "web_note_required": "a word (required)",
    "web_note_optional": "a word (optional)",
    "web_speech": "speech (optional)",
    "web_ended": "The session is over",
    "web_log": "log",
    "web_back": "All tables",
    "web_stale": "This decision was already answered.",
    "web_sheet": "What you know",
    "web_failed": "The table stopped",
    "web_human_help": "first_pc, pcs, gm, a character id",
    "web_others_help": "e.g. all=scripted, gm=llm, npcs=random (as trpg play --seat)",
    "web_table_of": "{title} — seed {seed}",
    "web_nothing": "Nothing has happened yet.",
    "web_standing": "Standing answers",
    "web_standing_help": "Settle reactions such as rerolls once instead of being asked each time (change them any time).",
    "web_standing_save": "Save",
    "web_standing_ask": "ask every time",
    "web_standing_saved": "Saved: used from the next reaction on.",
}

_WORDS = {"ja": _JA, "en": _EN}


def interface_words(lang: str) -> dict[str, str]:
    """The interface's messages in ``lang`` (ja or en; anything else reads as ja)."""
    return _WORDS.get(lang, _JA)


def web_words(lang: str) -> dict[str, str]:
    """The browser table's messages (the ``web_*`` entries) in ``lang``, without their prefix."""
    return {k[4:]: v for k, v in interface_words(lang).items() if k.startswith("web_")}


def no_field(text: str) -> str:
    """Text without the answer-field name it gives model seats (「行動の内容を一言（note）」 → 「行動の内容を一言」)."""
    return re.sub(r"[:：]\s*note(?=）)|（note）|\s?\(note\)", "", text)
