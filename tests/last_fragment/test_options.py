"""ラストフラグメント's rule options beyond the defaults, played in whole sessions (the exact cases are data:
engine/systems/last_fragment/examples/last_fragment_options.yaml): several handouts for one PC, scenario skills of the
HOUSE timings round_start / round_end, and every non-default value of item_requests_per_check, item_use_on_others,
all_pcs_in_every_scene, resolution_mode and memorialize_timing on both samples with random and scripted seats —
each finishes, replays exactly, and its option is exercised."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import IllegalAnswer, Session, load_scenario
from engine.core.decision import Decision
from engine.core.events import CheckEvent, NarrationEvent
from engine.core.replay import verify

ROOT = Path(__file__).resolve().parents[2]
SHUUDEN = ROOT / "scenarios" / "last_fragment" / "shuuden_no_mukou.yaml"
KAERIMICHI = ROOT / "scenarios" / "last_fragment" / "kaerimichi_no_eki.yaml"


def play(path: Path, seed: int, *, random: bool, config: dict | None = None, log: Path | None = None) -> Session:
    s = Session(load_scenario(path), seed=seed, config=config, log_path=log)
    s.asked = []  # type: ignore[attr-defined]  # every Decision asked, with its context
    scripted = ScriptedAgent()
    agent = RandomAgent(seed) if random else scripted
    while not s.is_over:
        d = s.pending
        s.asked.append(d)  # type: ignore[attr-defined]
        try:
            s.answer(agent.act(s.view(d)), policy=agent.name, seq=d.seq)
        except IllegalAnswer:
            s.answer(scripted.act(s.view(d)), policy="scripted", seq=d.seq)
    return s


def edited(tmp_path: Path, path: Path, edit) -> Path:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    out = tmp_path / path.name
    out.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return out


def decisions(s: Session, kind: str) -> list[Decision]:
    return [d for d in s.asked if d.kind == kind]  # type: ignore[attr-defined]


def test_one_pc_may_hold_two_handouts(tmp_path):
    """The scenario gives 早瀬湊 two handouts: both are whispered to him alone, both are on his sheet, the GM may
    give a handout to any PC, and no other PC's view holds either text."""
    def two_for_minato(d):
        d["handouts"][1]["pc"] = "minato"

    path = edited(tmp_path, SHUUDEN, two_for_minato)
    s = play(path, 0, random=False, log=tmp_path / "s.jsonl")
    minato = s.game.t.chars["minato"]
    assert len(minato.handouts) == 2 and not s.game.t.chars["shiori"].handouts
    texts = set(minato.handouts)
    whispers = [e for e in s.events if isinstance(e, NarrationEvent) and e.text.startswith("ハンドアウト: ")]
    assert {e.text.removeprefix("ハンドアウト: ") for e in whispers} >= texts
    assert all(set(e.to or []) == {"minato", "gm"} for e in whispers if e.text.removeprefix("ハンドアウト: ") in texts)
    assert all(len(d.option_ids) == 1 + 2 for d in decisions(s, "gm.handout_assignment")), "keep + the two other PCs"
    for actor in ("shiori", "saku"):
        view = repr(s.game.observation(actor))
        assert not [t for t in texts if t in view], actor
    assert s.game.observation("minato")["me"]["handouts"] == minato.handouts
    verify(tmp_path / "s.jsonl")


def test_round_start_and_round_end_skills_are_used_in_their_windows(tmp_path):
    """A scenario skill of timing round_start / round_end is offered only as a free action in the combat's window
    of that timing, never as a main action, a combat action or in the aftermath; random seats use them."""
    def timed(d):
        d.setdefault("skills", []).extend([
            {"id": "kiai", "name": "気合", "ability": "seishin", "sp_cost": 2, "kind": "heal", "dice": "2",
             "timing": "round_start", "self_allowed": True},
            {"id": "zanshin", "name": "残心", "ability": "undou", "sp_cost": 3, "kind": "attack", "dice": "1D4",
             "timing": "round_end"},
        ])
        for pc in d["pcs"]:
            pc["skills"] = ["kiai", "zanshin"]

    path = edited(tmp_path, SHUUDEN, timed)
    used = {"kiai": 0, "zanshin": 0}
    for seed in range(6):
        s = play(path, seed, random=True, log=tmp_path / f"r{seed}.jsonl")
        assert s.is_over
        for kind in ("pc.main_action", "cb.combat_action", "cb.aftermath_action"):
            for d in decisions(s, kind):
                assert not [o for o in d.option_ids if ":kiai:" in o or ":zanshin:" in o], (kind, d.option_ids)
        for d in decisions(s, "pc.free_action"):
            window = (d.context or {}).get("window")
            for sid, want in (("kiai", "combat_start"), ("zanshin", "combat_end")):
                if any(o.startswith(f"skill:{sid}:") for o in d.option_ids):
                    assert window == want, (sid, window)
        for e in s.events:
            if isinstance(e, CheckEvent) and e.check == "skill":
                for sid, name in (("kiai", "気合"), ("zanshin", "残心")):
                    used[sid] += name in (e.label or "")
        verify(tmp_path / f"r{seed}.jsonl")
    assert used["kiai"] and used["zanshin"], used


#: each option value, and the evidence that a session played it
OPTIONS = {
    "item_requests_per_check": (None, lambda s: any((d.context or {}).get("requests") for d in decisions(s, "ck.item_request"))),
    "item_use_on_others": (True, lambda s: any(o.startswith("lend:") for d in decisions(s, "ck.item_request")
                                               for o in d.option_ids)),
    "all_pcs_in_every_scene": (False, lambda s: bool(decisions(s, "gm.scene_appearance"))),
    "resolution_mode": ("simultaneous", lambda s: any(isinstance(e, NarrationEvent) and "の行動宣言: " in e.text
                                                      for e in s.events)),
    "memorialize_timing": ("anytime", lambda s: any(o.startswith("memorialize:") for d in decisions(s, "pc.free_action")
                                                    for o in d.option_ids)),
}


@pytest.mark.parametrize("flag", sorted(OPTIONS))
def test_every_option_value_plays_whole_sessions(flag, tmp_path):
    value, played = OPTIONS[flag]
    seen = False
    runs = [(SHUUDEN, True), (KAERIMICHI, True), (SHUUDEN, False), (KAERIMICHI, False)] + [(SHUUDEN, True), (KAERIMICHI, True)] * 4
    for k, (path, rnd) in enumerate(runs):
        if seen and k >= 6:  # six sessions each, and more random ones until the value was played
            break
        log = tmp_path / f"{k}.jsonl"
        s = play(path, 10 + k, random=rnd, config={flag: value}, log=log)
        assert s.is_over and s.game.cfg.model_dump()[flag] == value
        verify(log)
        seen = seen or played(s)
    assert seen, f"{flag}={value!r} was never exercised"
