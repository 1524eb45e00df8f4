"""The story of a session as one seat saw it: the presentation layer every front end draws (terminal, shared logs).

A seat's past is its transcript (``Session.transcript(actor)`` / ``SeatView.transcript()``, ``engine.core.visibility``):
this module never decides who sees what, it only turns the events a seat was given into ``StoryItem``s — scene
headings, narration, speech with the speaker's name, dice lines (pool, faces, 達成値 against 目標値, 成功/失敗,
rerolls and their new faces), GM rulings with their reasons, clues and information as they are learned, the state
changes that matter to a player in words, and the ending.

Nothing here names a system. What only a system knows (how its check data reads as a dice line, the names of its
state paths, its ending words, its sheet) comes through its ``SystemInfo.story`` (``StoryHooks``); every hook is
optional and falls back to a generic rendering from the typed events (``CheckRoll``, ``RulingEvent``, ``InfoEvent``).
A hook gets a ``Namer`` (id → display name) and returns its text in the session's language; it may call the
``generic_*`` functions below for the cases it leaves to the core.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .events import (
    AnswerEvent,
    AutoEvent,
    CheckEvent,
    CheckRoll,
    DecisionEvent,
    EndEvent,
    HeaderEvent,
    InfoEvent,
    ModelCallEvent,
    NarrationEvent,
    PhaseEvent,
    RevealEvent,
    RollEvent,
    RulingEvent,
    StandingEvent,
    StateEvent,
    VoidEvent,
)
from .visibility import GM

if TYPE_CHECKING:
    from .decision import Decision
    from .panels import Panel
    from .registry import SystemInfo

__all__ = [
    "StoryItem",
    "StoryHooks",
    "Storyteller",
    "Namer",
    "names_in",
    "names_for",
    "words",
    "story_of",
    "generic_dice_lines",
    "generic_roll_text",
    "generic_info",
    "generic_state",
    "generic_ending",
    "generic_decision_lines",
    "ruling_reason",
    "plain_titles",
    "KINDS",
]

#: id → display name (a character's name, "GM" for the GM); unknown ids come back as they are
Namer = Callable[[str], str]

#: the kinds of story items, in the words a front end may style them by
KINDS = ("heading", "narration", "speech", "dice", "ruling", "info", "clue", "change", "reveal", "ending")


@dataclass(frozen=True)
class StoryItem:
    """One line (or block) of the story. ``speaker``: who speaks or acts, by name (narration, speech, a ruling);
    ``lines``: detail lines (one per roller of a check, one per PC in the ending); ``private``: only some seats
    were told (a whisper, a secret the engine addressed to this seat)."""

    kind: str
    text: str
    speaker: str = ""
    lines: tuple[str, ...] = ()
    private: bool = False


@dataclass(frozen=True)
class StoryHooks:
    """What a system supplies to the story (``SystemInfo.story``). Every hook is optional (None: the generic
    rendering). Hooks that return ``None`` leave the event out of the story (mechanical bookkeeping)."""

    #: a phase event → a scene heading, or None (no heading for this move)
    heading: Callable[[PhaseEvent], str | None] | None = None
    #: an info event → an item (``generic_info`` for the default), or None to leave it out
    info: Callable[[InfoEvent, Namer], StoryItem | None] | None = None
    #: a state change → its words for a player (「葵と紅の関係が 1 → 2」; an item for a clue), or None to leave it out
    state: Callable[[StateEvent, Namer], str | StoryItem | None] | None = None
    #: a check (with the seat's dice rolls that fed it, oldest first) → its dice lines, or None for the generic ones
    dice: Callable[[CheckEvent, Sequence[RollEvent], Namer], list[str] | None] | None = None
    #: an answer the seat saw → an item (a GM ruling given as a decision, a declaration), or None
    answer: Callable[[AnswerEvent, Namer], StoryItem | None] | None = None
    #: a ruling event → an item (whose ruling, in the system's words), or None for the generic one
    ruling: Callable[[RulingEvent, Namer], StoryItem | None] | None = None
    #: the end event's outcome → the lines of the ending (what happened to each PC)
    ending: Callable[[Mapping[str, Any], Namer], list[str]] | None = None
    #: a seat's observation → its compact sheet of its own character and the table (≤ 15 lines, 80 columns)
    sheet: Callable[[Mapping[str, Any]], list[Panel]] | None = None
    #: a decision → the numbers at stake, one short line each (target, pool, achievement, resources)
    decision: Callable[[Decision, Namer], list[str]] | None = None
    #: the game's words for the code values a form offers (an enum field's values: ``combat`` → 戦闘)
    terms: Mapping[str, str] = field(default_factory=dict)
    #: an observation → id → display name for everyone it names (default: ``names_in``)
    names: Callable[[Mapping[str, Any]], dict[str, str]] | None = None


# -- words of the shared layer ---------------------------------------------------------------------------------------

_WORDS: dict[str, dict[str, str]] = {
    "ja": {
        "gm": "GM",
        "success": "成功",
        "failure": "失敗",
        "critical": "クリティカル",
        "fumble": "ファンブル",
        "abandoned": "放棄",
        "auto_success": "自動成功",
        "auto_failure": "自動失敗",
        "ach": "達成値",
        "target": "目標値",
        "vs": "対",
        "pool": "{n}個",
        "approve": "承認",
        "reject": "却下",
        "ruling": "裁定",
        "void": "判定 {id} は無かったことになった",
        "reveal": "公開",
        "ending": "エンディング",
        "result": "結果",
        "change": "{what}: {old} → {new}",
        "reroll": "振り直し",
        "end": "セッション終了",
        "standing": "常時応答",
        "standing_dropped": "毎回たずねる",
        "standing_many": "{n}種の反応を決めておく",
    },
    "en": {
        "gm": "GM",
        "success": "success",
        "failure": "failure",
        "critical": "critical",
        "fumble": "fumble",
        "abandoned": "abandoned",
        "auto_success": "automatic success",
        "auto_failure": "automatic failure",
        "ach": "achievement",
        "target": "target",
        "vs": "vs",
        "pool": "{n} dice",
        "approve": "approved",
        "reject": "refused",
        "ruling": "ruling",
        "void": "check {id} never happened",
        "reveal": "revealed",
        "ending": "Ending",
        "result": "result",
        "change": "{what}: {old} → {new}",
        "reroll": "reroll",
        "end": "end of the session",
        "standing": "standing answers",
        "standing_dropped": "ask every time",
        "standing_many": "{n} kinds of reaction settled",
    },
}


def words(lang: str) -> dict[str, str]:
    """The shared layer's words in ``lang`` (ja or en; anything else reads as ja)."""
    return _WORDS.get(lang, _WORDS["ja"])


# -- names -----------------------------------------------------------------------------------------------------------

def names_in(observation: Mapping[str, Any], depth: int = 3) -> dict[str, str]:
    """Every ``{"id": ..., "name": ...}`` record (and ``id: {"name": ...}`` entry) an observation holds, as id →
    name: the characters, NPCs and curses the seat may know. The seat's own observation, so no name leaks."""
    out: dict[str, str] = {}

    def walk(v: Any, key: str | None, d: int) -> None:
        if d < 0:
            return
        if isinstance(v, Mapping):
            name = v.get("name")
            vid = v.get("id", key)
            if isinstance(name, str) and name and isinstance(vid, str) and vid:
                out.setdefault(vid, name)
            for k, x in v.items():
                if isinstance(x, (Mapping, list)):
                    walk(x, str(k), d - 1)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, Mapping):
                    walk(x, None, d - 1)

    walk(observation, None, depth)
    return out


def names_for(system: SystemInfo | None, observation: Mapping[str, Any]) -> dict[str, str]:
    """id → display name from a seat's observation, by the system's ``names`` hook or ``names_in``."""
    hooks = getattr(system, "story", None)
    fn = getattr(hooks, "names", None) or names_in
    return fn(observation)


class _Names:
    """A Namer that learns names as observations come in."""

    def __init__(self, lang: str, known: Mapping[str, str] | None = None):
        self.known: dict[str, str] = dict(known or {})
        self.gm = words(lang)["gm"]

    def __call__(self, cid: str) -> str:
        if cid == GM:
            return self.gm
        return self.known.get(cid, cid)


# -- generic renderings (the fallbacks, and helpers for the hooks) --------------------------------------------------

def generic_roll_text(r: CheckRoll, lang: str = "ja") -> str:
    """``4個 [3 2 4 6] → 達成値 1 / 目標値 1 成功``: a roll read from its typed fields."""
    w = words(lang)
    faces = f" [{' '.join(map(str, r.faces))}]" if r.faces else ""
    bits = [w["pool"].format(n=r.pool) + faces]
    if r.ach is not None:
        bits.append(f"→ {w['ach']} {r.ach}")
    if r.target is not None:
        bits.append(f"/ {w['target']} {r.target}")
    if r.result in ("critical", "fumble", "abandoned", "auto_success", "auto_failure"):
        bits.append(w[r.result])
    if r.success is not None:
        bits.append(w["success"] if r.success else w["failure"])
    return " ".join(bits)


def generic_dice_lines(e: CheckEvent, name: Namer, lang: str = "ja") -> list[str]:
    """One line per roller (its name, unless the label already shows it), or the check's result."""
    label = e.label or ""
    if e.rolls:
        alone = len(e.rolls) == 1
        out = []
        for r in e.rolls:
            n = name(r.who)
            who = "" if alone and n in label else f"{n}: "
            out.append(who + generic_roll_text(r, lang))
        return out
    return [e.result] if e.result and e.result not in label else []


def generic_info(e: InfoEvent, name: Namer) -> StoryItem | None:
    """Information as told: the text, private when the seat was one of few told."""
    if not e.text:
        return None
    return StoryItem("info", e.text, private=e.to is not None)


def ruling_reason(e: RulingEvent) -> str:
    """A ruling's reason in words: its text without the reason code some rules append (「万能すぎる: omnipotent」 →
    「万能すぎる」), or the code when there are no words."""
    text = e.text or ""
    if e.reason and text.endswith(f": {e.reason}"):
        text = text[: -len(e.reason) - 2]
    return text or ("" if e.verdict == "approve" else (e.reason or ""))


def plain_titles(panels: Sequence[Panel]) -> list[Panel]:
    """Panels with the observation keys some titles carry for the full view left out (「自分 (me)」 → 「自分」)."""
    from dataclasses import replace

    def plain(text: str) -> str:
        return _KEYS.sub("", text)

    out = []
    for p in panels:
        title = plain(p.title) if p.title else p.title
        header = tuple(plain(str(h)) for h in p.header)
        rows = [tuple(plain(str(c)) if i == 0 else c for i, c in enumerate(r)) for r in p.rows] if not p.header else p.rows
        out.append(replace(p, title=title, header=header, rows=rows))
    return out


#: an observation key (or several) after a label, for the full view: 「手札 (my hand)」, 「卓 (characters)」
_KEYS = re.compile(r"\s*\((?:[a-z_][a-z_ ]*(?:,\s*)?)+\)")


def _value(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "○" if v else "×"
    if isinstance(v, (int, float, str)):
        return str(v)
    return json.dumps(v, ensure_ascii=False)


def generic_state(e: StateEvent, name: Namer, labels: Mapping[str, str] | None = None) -> str | None:
    """A number whose last path segment the system names (``SystemInfo.labels``): 「七瀬 葵の気力: 1 → 2」; every
    other state change is bookkeeping, left out."""
    labels = labels or {}
    parts = e.path.split(".")
    what = labels.get(parts[-1])
    if what is None or not isinstance(e.new, (int, float)) or isinstance(e.new, bool):
        return None
    if not isinstance(e.old, (int, float)) or e.old == e.new:
        return None
    owner = name(parts[0]) if len(parts) > 1 else ""
    return f"{owner}の{what}: {e.old} → {e.new}" if owner else f"{what}: {e.old} → {e.new}"


def generic_ending(outcome: Mapping[str, Any], name: Namer, lang: str = "ja") -> list[str]:
    """The outcome's scalar entries, and each PC's entry when the outcome has ``pcs``."""
    out: list[str] = []
    for k, v in outcome.items():
        if k == "ending" and isinstance(v, str):
            out.insert(0, f"{words(lang)['result']}: {v}")
        elif isinstance(v, (str, int, float)) and not isinstance(v, bool):
            out.append(f"{k}: {v}")
    pcs = outcome.get("pcs")
    if isinstance(pcs, Mapping):
        for pid, v in pcs.items():
            status = v if isinstance(v, str) else (v.get("status") if isinstance(v, Mapping) else None)
            out.append(f"{name(str(pid))}: {status}" if status else name(str(pid)))
    return out


#: the context keys the generic decision view reads, with their words
_CONTEXT_WORDS = {
    "ja": {"ach": "達成値", "target": "目標値", "threshold": "目標値", "difficulty": "難易度", "pool": "ダイス"},
    "en": {"ach": "achievement", "target": "target", "threshold": "target", "difficulty": "difficulty", "pool": "dice"},
}


def generic_decision_lines(d: Decision, name: Namer, lang: str = "ja") -> list[str]:
    """The numbers a decision's context carries under the shared names (achievement, target, difficulty, pool)."""
    vocab = _CONTEXT_WORDS.get(lang, _CONTEXT_WORDS["ja"])
    ctx = d.context
    bits = []
    for key, word in vocab.items():
        v = ctx.get(key) if hasattr(ctx, "get") else None
        if isinstance(v, int) and not isinstance(v, bool):
            bits.append(f"{word} {v}")
    return ["・".join(dict.fromkeys(bits))] if bits else []


# -- the storyteller -------------------------------------------------------------------------------------------------

@dataclass
class Storyteller:
    """Turns a seat's events into story items, in order; fed batch by batch (a terminal between decisions) or all at
    once (a shared log). It keeps the dice rolled before a check (they can be split by a reroll decision) and the
    names learned from observations."""

    system: SystemInfo | None = None
    lang: str = "ja"
    names: Mapping[str, str] = field(default_factory=dict)
    #: GM-only bookkeeping (decisions, the GM's own answers without speech) is left out even of the GM's story
    _rolls: list[RollEvent] = field(default_factory=list)
    _name: _Names | None = None

    def __post_init__(self) -> None:
        self._name = _Names(self.lang, self.names)

    @property
    def hooks(self) -> StoryHooks:
        h = getattr(self.system, "story", None) if self.system is not None else None
        return h if isinstance(h, StoryHooks) else StoryHooks()

    @property
    def name(self) -> Namer:
        assert self._name is not None
        return self._name

    def learn(self, observation: Mapping[str, Any]) -> None:
        """Names from an observation of this seat (the characters it knows); the latest wins, so a PC named at the
        table (``--create``: its id until its profile is given) is called by its name from then on."""
        assert self._name is not None
        self._name.known.update(names_for(self.system, observation))

    def items(self, events: Iterable[BaseModel]) -> list[StoryItem]:
        out: list[StoryItem] = []
        for e in events:
            out.extend(self._item(e))
        return out

    def _item(self, e: BaseModel) -> list[StoryItem]:
        h = self.hooks
        name = self.name
        w = words(self.lang)
        if isinstance(e, RollEvent):
            self._rolls.append(e)
            return []
        if isinstance(e, CheckEvent):
            rolls, self._rolls = self._rolls, []
            lines = h.dice(e, rolls, name) if h.dice is not None else None
            if lines is None:
                lines = generic_dice_lines(e, name, self.lang)
            return [StoryItem("dice", e.label or e.result or e.check, lines=tuple(lines), private=e.to is not None)]
        if isinstance(e, (HeaderEvent, ModelCallEvent, DecisionEvent)):
            return []
        if isinstance(e, PhaseEvent):
            title = h.heading(e) if h.heading is not None else None
            return [StoryItem("heading", title)] if title else []
        if isinstance(e, NarrationEvent):
            private = e.to is not None
            kind = "clue" if private and e.source == "whisper" else "narration"
            return [StoryItem(kind, e.text, speaker=name(e.actor), private=private)]
        if isinstance(e, AnswerEvent):
            out: list[StoryItem] = []
            if h.answer is not None:
                made = h.answer(e, name)
                if made is not None:
                    out.append(made)
            spoken = e.answer.get("text")
            if isinstance(spoken, str) and spoken:
                kind = "narration" if e.actor == GM else "speech"
                out.append(StoryItem(kind, spoken, speaker=name(e.actor)))
            return out
        if isinstance(e, InfoEvent):
            if e.topic == "fallback":  # the table's note that a seat's agent failed: not part of the fiction
                return []
            made = h.info(e, name) if h.info is not None else generic_info(e, name)
            return [made] if made is not None else []
        if isinstance(e, StateEvent):
            labels = getattr(self.system, "labels", None) or {}
            said = h.state(e, name) if h.state is not None else generic_state(e, name, labels)
            if isinstance(said, StoryItem):
                return [said]
            return [StoryItem("change", said, private=e.to is not None)] if said else []
        if isinstance(e, RulingEvent):
            made = h.ruling(e, name) if h.ruling is not None else None
            if made is not None:
                return [made]
            verdict = w["approve"] if e.verdict == "approve" else w["reject"]
            why = ruling_reason(e)
            text = f"{e.subject}: {verdict}" + (f"（{why}）" if why else "")
            return [StoryItem("ruling", text, speaker=name(e.by), private=e.to is not None)]
        if isinstance(e, VoidEvent):
            text = w["void"].format(id=e.check) + (f"（{e.reason}）" if e.reason else "")
            return [StoryItem("info", text)]
        if isinstance(e, AutoEvent):  # a window resolved by a standing answer: told as its answer would be
            if h.answer is None:
                return []
            made = h.answer(AnswerEvent(seq=-1, actor=e.actor, kind=e.kind, answer=e.answer, label=e.label, to=e.to), name)
            return [made] if made is not None else []
        if isinstance(e, StandingEvent):
            return [StoryItem("info", f"{w['standing']}: " + "／".join(self._standing_text(a, kinds, w)
                                                                        for a, kinds in e.answers.items()),
                              private=e.to is not None)]
        if isinstance(e, RevealEvent):
            shown = "、".join(f"{name(a)} {e.labels.get(a, '')}".strip() for a in e.answers)
            return [StoryItem("reveal", f"{w['reveal']}: {shown}")]
        if isinstance(e, EndEvent):
            lines = h.ending(e.outcome, name) if h.ending is not None else generic_ending(e.outcome, name, self.lang)
            return [StoryItem("ending", w["ending"], lines=tuple(lines))]
        return []

    def _standing_text(self, actor: str, kinds: Mapping[str, str | None], w: Mapping[str, str]) -> str:
        """「name: window → answer」 per window (a seat's own few), or how many windows (a GM's many seats)."""
        table = getattr(self.system, "decision_table", None) or {}
        said: list[str] = []
        for kind, sid in kinds.items():
            spec = table.get(kind)
            title = getattr(spec, "title", "") or kind
            if sid is None:
                said.append(f"{title} → {w['standing_dropped']}")
                continue
            label = next((sa.label for sa in getattr(spec, "standing", ()) if sa.id == sid), sid)
            said.append(f"{title} → {label}")
        if len(said) > 3:
            return f"{self.name(actor)}: " + w["standing_many"].format(n=len(said))
        return f"{self.name(actor)}: " + "、".join(said)

    # -- what a seat sees of a pending decision -------------------------------------------------------------------
    def decision_lines(self, d: Decision) -> list[str]:
        h = self.hooks
        if h.decision is not None:
            return h.decision(d, self.name)
        return generic_decision_lines(d, self.name, self.lang)

    def sheet(self, observation: Mapping[str, Any]) -> list[Panel]:
        """The compact sheet: the system's ``sheet`` hook, else its compact panels."""
        h = self.hooks
        if h.sheet is not None:
            return plain_titles(h.sheet(observation))
        panels = getattr(self.system, "panels", None)
        return plain_titles(panels(observation, True)) if callable(panels) else []


def story_of(events: Sequence[BaseModel], system: SystemInfo | None, *, lang: str = "ja",
             names: Mapping[str, str] | None = None) -> list[StoryItem]:
    """The story of events already filtered for one seat (``seat_transcript``), in one go."""
    return Storyteller(system, lang, dict(names or {})).items(events)
