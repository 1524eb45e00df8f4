"""Single procedures on a prepared table, for the worked examples of rules/yogaribito.md §12 and designers'
edge-case files (``trpg examples``).

A session with ``options={"procedure": {NAME: ARGS}, "setup": {...}}`` loads the scenario's characters, applies
``setup`` and runs one procedure of the rules (a check, an opposed check, an attack, a round of combat, creation,
afterplay...) instead of a whole session. The rules code is the same as in play; only the starting point differs.

``setup`` (every key optional)::

    chars:
      jin:   {sample: sample_midou_jin}           # a §11.5 sample PC under the id "jin"
      ghoul: {enemy: ghoul, name: 屍鬼}            # a §11.7 enemy
      soma:  {pc: {name: 蒼馬, main_class: summoner, base: {mind: 1, tech: 2, body: 4, life: 8, soul: 7, luck: 2},
                   feats: [pact_beast], items: [{item: knife, slot: right_hand}]}}   # a PC from raw values
      mio:   {current: {life: 2, soul: 5}, statuses: {poison: []}, awakened: false}  # patch of an existing one
    layout: {E1: [jin], E2: [ghoul]}               # a battlefield (engagements)
    time_of_day: night                             # day | night | none
    tags: [unholy]
    phase: climax
    present: [jin, ghoul]                          # default: every character
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ...core.examples import dispatch_procedure
from .base import Gen
from .state import POOL_STATS, SLOT_IDS, Battlefield, Character, ItemState

if TYPE_CHECKING:
    from .game import YogaribitoGame

__all__ = ["apply_setup", "run_procedure", "procedures"]

_MODULES = ("procedures_checks", "procedures_combat", "procedures_creation")


def procedures() -> dict[str, Any]:
    """Every procedure by name, from the owners' modules."""
    out: dict[str, Any] = {}
    for m in _MODULES:
        try:
            mod = importlib.import_module(f"{__package__}.{m}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{m}":
                raise
            continue
        for name, fn in mod.PROCEDURES.items():
            if name in out:
                raise ValueError(f"procedure {name!r} is defined twice")
            out[name] = fn
    return out


def run_procedure(game: YogaribitoGame, proc: dict[str, Any]) -> Gen:
    return (yield from dispatch_procedure(procedures(), game, proc))


def _raw_pc(game: YogaribitoGame, cid: str, spec: dict[str, Any]) -> Character:
    """A character from raw values (worked examples name PCs that are not samples: Sōma, Kurō, Hikari...)."""
    base = {k: int(v) for k, v in (spec.get("base") or {}).items()}
    for k in ("mind", "tech", "body", "life", "soul", "luck", "wealth"):
        base.setdefault(k, 0 if k in ("luck", "wealth") else 1)
    side = spec.get("side", "pc")
    c = Character(id=cid, name=spec.get("name", cid), side=side, kind=spec.get("kind", "pc" if side == "pc" else "npc"),
                  main_class=spec.get("main_class"), sub_class=spec.get("sub_class", spec.get("main_class")),
                  base=dict(base), current=dict(base), feats=list(spec.get("feats") or []),
                  awaken_eligible=bool(spec.get("awaken_eligible", side == "pc" and spec.get("main_class") != "common")))
    if c.main_class == "witch_hunter" and "bullets" not in base:
        c.base["bullets"] = c.current["bullets"] = 5
    for n, it in enumerate(spec.get("items") or []):
        item = str(it["item"]) if isinstance(it, dict) else str(it)
        slot = it.get("slot") if isinstance(it, dict) else None
        uid = str(it.get("uid") or item) if isinstance(it, dict) else item
        from .arms import ITEMS

        if item not in ITEMS:
            raise ValueError(f"setup.chars.{cid}.items[{n}]: unknown item {item!r}")
        c.items.append(ItemState(uid=uid, item=item, origin=(it.get("origin", "stocked") if isinstance(it, dict)
                                                              else "stocked"),
                                 slot=slot, uses_left=1 if ITEMS[item].type == "consumable" else None))
    occupied = game._occupied_slots(c)
    c.current["kagaribi"] = int(spec.get("kagaribi", max(0, 6 - len(occupied))))
    for s in SLOT_IDS:
        c.slots_used_this_scenario[s] = s in occupied
    if spec.get("tags"):
        c.tags = list(spec["tags"])
    return c


def _patch(c: Character, cid: str, patch: dict[str, Any]) -> None:
    for k, v in patch.items():
        if k in ("current", "base"):
            target = getattr(c, k)
            for stat, val in v.items():
                if stat not in POOL_STATS and stat != "kagaribi":
                    raise ValueError(f"setup.chars.{cid}.{k}: unknown stat {stat!r}")
                target[stat] = int(val)
        elif k == "statuses":
            c.statuses = {s: list(inf or []) for s, inf in v.items()}
        elif k == "slots_usable":
            c.slots_usable.update(v)
        elif k == "items":
            raise ValueError(f"setup.chars.{cid}.items: give items when creating a raw character (pc:)")
        elif k in ("sample", "enemy", "pc", "name"):
            continue
        elif hasattr(c, k) and not k.startswith("_") and k not in ("id", "snap"):
            cur = getattr(c, k)
            if isinstance(cur, list):
                setattr(c, k, list(v))
            elif isinstance(cur, dict):
                setattr(c, k, dict(v))
            else:
                setattr(c, k, v)
        else:
            raise ValueError(f"setup.chars.{cid}: unknown field {k!r}")


def apply_setup(game: YogaribitoGame, setup: dict[str, Any]) -> None:
    from .creation import character_from_sheet, enemy_character

    t = game.t
    for cid, spec in (setup.get("chars") or {}).items():
        spec = dict(spec or {})
        if "sample" in spec:
            c = character_from_sheet({"id": cid, "sample": spec["sample"], **({"name": spec["name"]} if "name" in spec
                                                                               else {})}, cfg=game.cfg)
            t.chars.pop(cid, None)
            t.chars[cid] = c
        elif "enemy" in spec:
            t.chars.pop(cid, None)
            t.chars[cid] = enemy_character(spec["enemy"], cid, spec.get("name"))
        elif "pc" in spec:
            t.chars.pop(cid, None)
            t.chars[cid] = _raw_pc(game, cid, dict(spec["pc"]))
        elif cid not in t.chars:
            raise ValueError(f"setup.chars: unknown character {cid!r} (give sample:, enemy: or pc: to create it)")
        _patch(t.chars[cid], cid, spec)
    if "chars" in setup and setup.get("only_listed", True):
        # the listed characters make the table (scenario characters not named are left out)
        keep = set(setup["chars"])
        for cid in [k for k in t.chars if k not in keep]:
            del t.chars[cid]
    if "time_of_day" in setup:
        t.time_of_day = setup["time_of_day"]
    if "tags" in setup:
        t.env_tags = list(setup["tags"])
    if "phase" in setup:
        t.phase = setup["phase"]
    present = setup.get("present", list(t.chars))
    for cid in present:
        if cid not in t.chars:
            raise ValueError(f"setup.present: unknown character {cid!r}")
        t.chars[cid].in_scene = True
    t.present = list(present)
    if "layout" in setup:
        bf = Battlefield()
        n = 0
        for eid, members in setup["layout"].items():
            for m in members:
                if m not in t.chars:
                    raise ValueError(f"setup.layout.{eid}: unknown character {m!r}")
            bf.engagements[eid] = list(members)
            if eid.startswith("E") and eid[1:].isdigit():
                n = max(n, int(eid[1:]))
        bf.next_id = n + 1
        t.battlefield = bf
