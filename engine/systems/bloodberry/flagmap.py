"""フラグマップ the flag map (rules/bloodberry.md §7.6, A31–A33, A36, G7, G8).

Camps race over a map of places in 20-minute units. Each camp has its own shared hand (places × 2 cards) and its
own layout of every place; per unit each camp may place up to 3 cards as place fragments (a card fills an
unfilled slot of the place's condition; fragments never move back), any number of sub-event cards on its
established places, then either moves to an established place (gated places need an opposed entry check against
the place) or draws a card. Moving onto a place whose flag is available raises it: the flag's event is played as a
scene, followed by between-scenes processing. The clock advances 20 minutes once per unit, after every camp has
acted. Raising an END flag ends the map.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...core import ask
from ...core.decision import Answer, Decision
from .cards import Card, Shoe, accepted_codes, card_info, card_names, card_value
from .judge import CheckSpec, Roller

if TYPE_CHECKING:
    from .game import BloodberryGame
    from .scenario import FlagMapData

__all__ = ["FlagMap", "MAX_UNITS", "MAX_PLACEMENTS_PER_UNIT", "camp_title"]


#: a name's reading in brackets at its end: 「御堂 紅（みどう べに）」
_READING = re.compile(r"（[^）]*）$")


def camp_title(member_names: Sequence[str], npc: bool | None = None) -> str:
    """A camp as players read it: its members' names without their reading in brackets, as PC or NPC camp when
    known (the terminal's flag-map panel shows camps this way too)."""
    names = "・".join([_READING.sub("", n) for n in member_names])
    side = "" if npc is None else ("NPC" if npc else "PC")
    return f"{side}の陣営（{names}）" if side else f"陣営（{names}）"

Gen = Generator[Decision, Answer, Any]
MAX_UNITS = 60  # HOUSE safety cap: 20 hours of in-game time
MAX_PLACEMENTS_PER_UNIT = 3  # §7.6 [2]
SUIT_NAMES = {"♠": "スペード", "♣": "クラブ", "♥": "ハート", "♦": "ダイヤ"}
#: how a flag map ended (FlagMap.ended), as players read it
ENDED_NAMES = {"end_flag": "終了フラグが立った", "timeout": "時間切れ", "no_pc": "行動できるPCがいない",
               "defeat": "フラグのイベントの対峙に敗れた"}


@dataclass
class CampState:
    id: str
    members: list[str]
    npc: bool
    hand: list[Card] = field(default_factory=list)
    #: place id -> one entry per condition slot: the card placed there, or None
    layout: dict[str, list[Card | None]] = field(default_factory=dict)
    #: place id -> sub-event cards lying on it
    subevents: dict[str, list[Card]] = field(default_factory=dict)
    established: list[str] = field(default_factory=list)
    location: str | None = None
    #: the camp as players read it (``FlagMap._camp_name``)
    title: str | None = None


class FlagMap:
    def __init__(self, game: BloodberryGame, data: FlagMapData):
        self.g = game
        self.data = data
        self.places = {p.id: p for p in data.places}
        self.flags = {f.id: f for f in data.flags}
        #: each place's condition slots, as the codes of the cards each one accepts (the scenario's data and the
        #: table's options do not change during a session)
        face = game.cfg.face_card_numeric
        self.accepts: dict[str, tuple[frozenset[str], ...]] = {
            p.id: tuple(accepted_codes(slot, face) for slot in p.condition) for p in data.places}
        self.raised: list[str] = []
        self.raised_by: dict[str, str] = {}
        self.camps: list[CampState] = []
        self.shoe: Shoe | None = None
        self.unit = 0
        self.ended: str | None = None
        self.winner: str | None = None

    # -- views -------------------------------------------------------------------------------------------------
    def view(self, actor: str) -> dict[str, Any]:
        g = self.g
        out: dict[str, Any] = {
            "id": self.data.id,
            "title": self.data.title,
            "clock_minutes": g.t.clock,
            "unit": self.unit,
            "places": {p.id: {"name": p.name, "condition": [s.model_dump(exclude_none=True) for s in p.condition],
                              "flag": p.flag, "gated": p.gate is not None} for p in self.data.places},
            "flags": {f.id: {"name": f.name, "kind": f.kind, "requires": list(f.requires), "raised": f.id in self.raised}
                      for f in self.data.flags},
            "camps": {},
            "discard": [c.code for c in self.shoe.discard] if self.shoe else [],
            "deck": len(self.shoe.deck) if self.shoe else 0,
        }
        for cs in self.camps:
            d: dict[str, Any] = {
                "members": list(cs.members),
                "layout": {pid: [c.code if c else None for c in slots] for pid, slots in cs.layout.items()},
                "subevents": {pid: [c.code for c in cards] for pid, cards in cs.subevents.items() if cards},
                "established": list(cs.established),
                "location": cs.location,
                "hand_size": len(cs.hand),
            }
            if actor == "gm" or actor in cs.members:  # a camp's shared hand is private to the camp
                d["hand"] = [c.code for c in cs.hand]
            out["camps"][cs.id] = d
        return out

    # -- setup -------------------------------------------------------------------------------------------------
    def _camp_name(self, cs: CampState) -> str:
        """A camp as players read it: PC or NPC camp and its members' names (without the reading in brackets); made
        once per camp (its members and their names are fixed once the map is set up)."""
        title = cs.title
        if title is None:
            title = cs.title = camp_title([self.g.t.chars[m].name for m in cs.members], cs.npc)
        return title

    def _decider(self, cs: CampState) -> str:
        """§8 fm.place: the engine asks the camp's lowest-numbered PC; the GM decides for NPC camps."""
        if cs.npc:
            return "gm"
        pcs = [self.g.t.chars[m] for m in cs.members if self.g.t.chars[m].is_pc and self.g.t.chars[m].status == "active"]
        return min(pcs, key=lambda c: c.number).id if pcs else "gm"

    def _value(self, c: Card) -> int:
        v = card_value(c, self.g.cfg.face_card_numeric, self.g.cfg.ace_value)
        return 0 if v is None else v

    def _log_hand(self, cs: CampState, why: str) -> None:
        # a camp's hand is its members' (and the GM's) to see
        self.g.ctx.state(f"flag_map.{cs.id}.hand", None, [c.code for c in cs.hand], "§7.6", why, to=list(cs.members))

    def setup(self) -> Gen:
        g = self.g
        data = self.data
        pcs_active = [p for p in g.t.pcs() if p.status == "active"]
        if data.camps:
            for camp in data.camps:
                members = [m for m in camp.members if g.t.chars[m].status == "active"]
                npc = all(not g.t.chars[m].is_pc for m in camp.members)
                self.camps.append(CampState(camp.id, members, npc))
        else:
            self.camps.append(CampState("pcs", [p.id for p in pcs_active], False))
        self.camps = [c for c in self.camps if c.members]
        for cs in self.camps:
            cs.layout = {p.id: [None] * len(p.condition) for p in data.places}
            cs.subevents = {p.id: [] for p in data.places}
        self.shoe = Shoe(g.ctx.dice, f"flag_map:{data.id}") if data.deck is None else _stacked(g, data.deck, self.camps, data)
        per_camp = len(data.places) * 2  # §7.6 [1] (D8)
        for cs in self.camps:
            if data.deck is not None and data.hands and cs.id in data.hands:
                from .cards import parse_card

                cs.hand = [parse_card(x) for x in data.hands[cs.id]]
            else:
                cs.hand = [self.shoe.draw() for _ in range(per_camp)]
            self._log_hand(cs, "deal")
        g.ctx.info("flag_map", f"フラグマップ「{data.title}」", camps={c.id: list(c.members) for c in self.camps},
                   places=[p.id for p in data.places], clock=g.t.clock)
        # camp order (A32): PC camps first, or a one-time face-down card bid
        if g.cfg.flagmap_camp_order == "card_bid" and len(self.camps) > 1:
            # the bids are laid face down at once (ARCHITECTURE 9): every camp's card is held by the session until
            # all are in, so a camp that bids later (the GM's rival camp) never sees another's card or hand change
            bids: dict[str, Card] = {}
            rounds: list[list[CampState]] = []  # a decider with several camps (the GM) bids for them one node each
            for cs in self.camps:
                if cs.hand:
                    who = self._decider(cs)
                    slot = next((r for r in rounds if all(self._decider(x) != who for x in r)), None)
                    if slot is None:
                        rounds.append(slot := [])
                    slot.append(cs)
            for i, group in enumerate(rounds):
                asked: list[Decision] = []
                for cs in group:
                    names = card_names(cs.hand)
                    asked.append(Decision(
                        self._decider(cs), "fm.bid", f"{self._camp_name(cs)}: 順番を決めるカードを伏せて出す",
                        "§7.6 FM_SETUP, A32", options=ask.options([(c.id, names[c.id]) for c in cs.hand]),
                        context={"camp": cs.id, "hand": [card_info(c, self.g.cfg.face_card_numeric, self.g.cfg.ace_value)
                                                         for c in cs.hand]}))
                # the last node reveals its bids; earlier ones stay sealed until camp_order announces them all
                answers = yield from ask.simultaneous(asked, "fm.bid", "§7.6 FM_SETUP, A32",
                                                      reveal_to=None if i == len(rounds) - 1 else ())
                for cs, m in zip(group, asked):
                    bids[cs.id] = next(c for c in cs.hand if c.id == answers[m.actor].choice)
            for cs in self.camps:
                if cs.id in bids:
                    cs.hand.remove(bids[cs.id])
                    self._log_hand(cs, "bid")
            for card in bids.values():
                self.shoe.discard.append(card)
            index = {c.id: i for i, c in enumerate(self.camps)}
            self.camps.sort(key=lambda c: (-self._value(bids[c.id]) if c.id in bids else 1, index[c.id]))
            g.ctx.info("camp_order", "陣営の順番 (入札)", bids={k: v.code for k, v in bids.items()}, order=[c.id for c in self.camps])
        else:
            self.camps.sort(key=lambda c: 1 if c.npc else 0)

    # -- one 20-minute unit ------------------------------------------------------------------------------------
    def run(self, play_flag_event: Any) -> Gen:
        """The loop of §7.6; ``play_flag_event(flag, camp, is_last)`` plays a raised flag's event and between-scenes."""
        g = self.g
        while self.ended is None:
            self.unit += 1
            if self.unit > MAX_UNITS:
                self.ended = "timeout"
                break
            for cs in self.camps:
                if not any(g.t.chars[m].status == "active" for m in cs.members):
                    continue
                for m in cs.members:  # A20: a member's 破魔 may be released at any time (game._hama_release_window)
                    yield from g._hama_release_window(g.t.chars[m], "flag_map")
                yield from self._place(cs)
                yield from self._subevents(cs)
                flag = yield from self._step3(cs)
                if flag is not None:
                    end = self.flags[flag].kind == "end"
                    if end:
                        self.ended = "end_flag"
                        self.winner = cs.id
                    yield from play_flag_event(self.flags[flag], cs, end)
                    if g.cf_result == "defeat" and self.ended is None:
                        self.ended = "defeat"  # §6: a confrontation defeat ends the session, the map with it
                if self.ended is not None or not g._any_pc_in_play():
                    break
            # the unit's 20 minutes pass once, after every camp has acted (§7.6 [3])
            old = g.t.clock
            g.t.clock += 20
            g.ctx.state("clock", old, g.t.clock, "§7.6 [3] 20 minutes")
            if not g._any_pc_in_play() and self.ended is None:
                self.ended = "no_pc"
        g.ctx.info("flag_map_end", f"フラグマップ終了（{ENDED_NAMES.get(self.ended or '', self.ended)}）", result=self.ended, winner=self.winner,
                   raised=list(self.raised), clock=g.t.clock)

    def _fits(self, cs: CampState, card: Card, pid: str) -> int | None:
        """The first unfilled slot of place ``pid`` (in this camp's layout) that ``card`` fits."""
        if pid in cs.established:
            return None
        code = card.code
        for i, accepted in self._open_slots(cs, pid):
            if code in accepted:
                return i
        return None

    def _open_slots(self, cs: CampState, pid: str) -> list[tuple[int, frozenset[str]]]:
        """The unfilled slots of place ``pid`` in this camp's layout: (index, the codes of the cards it accepts)."""
        return [(i, acc) for i, (acc, x) in enumerate(zip(self.accepts[pid], cs.layout[pid])) if x is None]

    def _place(self, cs: CampState) -> Gen:
        g = self.g
        placed = 0
        while placed < MAX_PLACEMENTS_PER_UNIT and cs.hand:
            pairs: list[tuple[str, str]] = [("done", "配置を終える")]
            remaining: dict[str, int] = {}
            names = card_names(cs.hand)  # two copies of one card in the hand: 「5♦（1枚目）」「5♦（2枚目）」
            for pid, place in self.places.items():
                if pid in cs.established:
                    continue
                open_slots = self._open_slots(cs, pid)
                remaining[pid] = len(open_slots)
                for card in cs.hand:  # (what _fits tells, for every card of the hand at once)
                    code = card.code
                    for _, acc in open_slots:
                        if code in acc:
                            pairs.append((f"place:{card.id}:{pid}", f"{names[card.id]} を{place.name}へ"))
                            break
            if len(pairs) == 1:
                return
            ch = yield from g.choose(
                self._decider(cs), "fm.place", f"{self._camp_name(cs)}: 場所の欠片を置く ({placed}/{MAX_PLACEMENTS_PER_UNIT})", "§7.6 [2]", pairs,
                context={"camp": cs.id, "placed": placed, "remaining": remaining, "npc_camp": cs.npc,
                         "flag_places": [pid for pid, p in self.places.items() if p.flag and p.flag not in self.raised]},
                refused={"place": f"at most {MAX_PLACEMENTS_PER_UNIT} cards per camp per 20 minutes (§7.6 [2])"},
            )
            if ch == "done":
                return
            _, cid, pid = ch.split(":")
            card = next(c for c in cs.hand if c.id == cid)
            slot = self._fits(cs, card, pid)
            assert slot is not None
            cs.hand.remove(card)
            cs.layout[pid][slot] = card
            placed += 1
            g.ctx.state(f"flag_map.{cs.id}.{pid}[{slot}]", None, card.code, "§7.6 [2] place fragment")
            if all(x is not None for x in cs.layout[pid]):
                cs.established.append(pid)
                g.ctx.info("established", f"{self.places[pid].name} が成立した（{self._camp_name(cs)}）", camp=cs.id, place=pid)

    def _subevents(self, cs: CampState) -> Gen:
        g = self.g
        while cs.established and cs.hand:
            names = card_names(cs.hand)
            pairs = [("done", "置かない")] + [(f"sub:{c.id}:{pid}", f"{names[c.id]} を{self.places[pid].name}にサブイベントとして置く")
                                            for pid in cs.established for c in cs.hand]
            ch = yield from g.choose(self._decider(cs), "fm.subevent", f"{self._camp_name(cs)}: サブイベントのカードを置く?", "§7.6 [2] sub-event",
                                     pairs, context={"camp": cs.id})
            if ch == "done":
                return
            _, cid, pid = ch.split(":")
            card = next(c for c in cs.hand if c.id == cid)
            cs.hand.remove(card)
            cs.subevents[pid].append(card)
            g.ctx.state(f"flag_map.{cs.id}.{pid}.subevents", None, card.code, "§7.6 [2] sub-event card (horizontal)")

    def _available(self, fid: str | None) -> bool:
        if fid is None or fid in self.raised:
            return False
        return all(r in self.raised for r in self.flags[fid].requires)

    def _step3(self, cs: CampState) -> Gen:
        g = self.g
        assert self.shoe is not None
        pairs = [(f"move:{pid}", f"{self.places[pid].name} へ移動する") for pid in cs.established]
        if self.shoe.can_draw:
            pairs.append(("draw", "山札から一枚引く"))
        elif not pairs:
            # every card is in a hand or on the map (two decks, HOUSE G8: no reshuffle is possible): nothing to do
            g.ctx.info("no_card", f"{self._camp_name(cs)}: 山札にも捨て札にもカードがない", camp=cs.id)
            return None
        ch = yield from g.choose(
            self._decider(cs), "fm.step3", f"{self._camp_name(cs)}: 移動するか、カードを引くか (20分)", "§7.6 [3]", pairs,
            context={"camp": cs.id, "flags_here": {pid: self.places[pid].flag for pid in cs.established},
                     "available": {pid: self._available(self.places[pid].flag) for pid in cs.established}},
        )
        if ch == "draw":
            card = self.shoe.draw()
            cs.hand.append(card)
            self._log_hand(cs, "draw")
            return None
        pid = ch.split(":", 1)[1]
        place = self.places[pid]
        if place.gate is not None:
            entered = yield from self._gate(cs, pid)
            if not entered:
                g.ctx.info("gate", f"{place.name} に入れなかった", camp=cs.id, place=pid)
                return None
        old = cs.location
        cs.location = pid
        g.ctx.state(f"flag_map.{cs.id}.location", old, pid, "§7.6 [3] move")
        raised = None
        if self._available(place.flag):
            assert place.flag is not None
            self.raised.append(place.flag)
            self.raised_by[place.flag] = cs.id
            g.t.flags.add(place.flag)
            g.t.flags.add(f"{place.flag}@{cs.id}")  # later scenes can depend on who raised it
            g.ctx.state(f"flag.{place.flag}", False, True, "§7.6 [3] flag raised", cs.id)
            raised = place.flag
        elif place.flag is not None and place.flag not in self.raised:
            g.ctx.info("flag_not_ready", "まだフラグが成立していない", camp=cs.id, place=pid, flag=place.flag)
        # sub-events on this place trigger at the end of the visit (A36)
        for card in list(cs.subevents[pid]):
            text = self.data.subevents.get(card.suit) or self.data.subevents.get("any") or ""
            g.ctx.info("subevent", f"サブイベント ({card.code}, {SUIT_NAMES[card.suit]})", camp=cs.id, place=pid, card=card.code)
            if text:
                g.ctx.narrate("gm", text)
            if g.cfg.subevent_card_consumed:
                cs.subevents[pid].remove(card)
                self.shoe.discard.append(card)
        return raised

    def _gate(self, cs: CampState, pid: str) -> Gen:
        """場所による移動の妨害 (D10, A31): one camp member vs the place (pool = highest fragment value)."""
        g = self.g
        place = self.places[pid]
        gate = place.gate
        assert gate is not None
        members = [g.t.chars[m] for m in cs.members if g.t.chars[m].status == "active"]
        if not members:
            return False
        pools = {m.id: m.value(gate.bases[0]) + m.value(gate.bases[1]) for m in members}
        who = yield from g.choose(self._decider(cs), "fm.gate_roller", f"{place.name} の妨害: 誰が判定する?", "§7.6 [3], §8 fm.gate_roller",
                                  [(m.id, f"{m.name} ({pools[m.id]}D)") for m in members],
                                  context={"pools": pools, "keys": {m.id: m.has_key or m.has_class_skill("spare_key") for m in members}})
        roller = g.t.chars[who]
        frag = max((self._value(c) for c in cs.layout[pid] if c is not None), default=0)
        spec = CheckSpec("opposed", "gate", f"{roller.name}: {place.name} の妨害", "§7.6 D10, A31", door=gate.door)
        ra = Roller(roller, "active", (gate.bases[0], gate.bases[1]))
        if g.cfg.flagmap_obstruction_mode == "fixed_value":
            # the place's achievement is the fragment value itself (no dice): a basic check against value + 1
            r = Roller(roller, "basic", (gate.bases[0], gate.bases[1]), threshold=frag + 1)
            yield from g.judge(CheckSpec("basic", "gate", spec.label, spec.rule, door=gate.door), [r])
            return r.success
        place_char = _PlaceRoller.make(g, pid, place.name, frag)
        rp = Roller(place_char, "passive", ("passion", "grace"))  # pool = passion (the fragment value) + 0
        yield from g.judge(spec, [ra, rp])
        return ra.success


class _PlaceRoller:
    """A place rolls as the passive side of its gate check with a pool equal to its highest fragment (A31)."""

    @staticmethod
    def make(g: BloodberryGame, pid: str, name: str, pool: int) -> Any:
        from .state import Char

        return Char(id=f"place:{pid}", name=name, kind="place", ab={"passion": pool, "grace": 0, "maturity": 0},
                    full={}, status="active")


def _stacked(g: BloodberryGame, deck: list[str], camps: list[CampState], data: FlagMapData) -> Shoe:
    """A stacked deck for examples: the listed cards on top, then the rest in a fixed order (no shuffle)."""
    from .cards import full_shoe, parse_card

    top = [parse_card(c) for c in deck]
    held = [parse_card(c) for cards in (data.hands or {}).values() for c in cards]
    taken = {c.id for c in top + held}
    return Shoe(g.ctx.dice, f"flag_map:{data.id}", order=top + [c for c in full_shoe() if c.id not in taken])



