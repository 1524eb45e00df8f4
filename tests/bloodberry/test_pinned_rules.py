"""Rules that could be removed from the code with every test still passing (#13 item 11), pinned here."""

from __future__ import annotations

from pathlib import Path

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.systems.bloodberry.state import SkillState

ROOT = Path(__file__).resolve().parents[2]
CAST = ROOT / "engine" / "systems" / "bloodberry" / "examples" / "bloodberry_cast.yaml"


def _drive(gen):
    """Run a rules generator, answering every window it opens with its first option (no 忘却)."""
    try:
        d = next(gen)
        while True:
            d = gen.send(d.check(d.option_ids[0] if "pass" not in d.option_ids else "pass"))
    except StopIteration as stop:
        return stop.value


def test_byojaku_heals_up_to_the_full_value_unless_heal_cap_is_none():
    """§9.1 病弱 recovers 2 情熱; HOUSE heal_cap `full` (the default) caps it at the full value (§4.1)."""
    for cap, expected in (("full", "full"), ("none", "plus_two")):
        s = Session(load_scenario(CAST), 0, config={"heal_cap": cap})
        g = s.game
        c = next(p for p in g.t.pcs())
        sk = c.skill("byojaku")
        if sk is None:
            sk = SkillState("byojaku")
            c.skills.append(sk)
        sk.sublimated, sk.effect_available = True, True
        full = c.full["passion"]
        c.ab["passion"] = full - 1
        _drive(g.use_byojaku(c))
        assert c.ab["passion"] == (full if expected == "full" else full + 1), (cap, c.ab["passion"], full)


def test_a_flag_whose_prerequisites_are_not_raised_is_not_available():
    """§7.6: a flag with `requires` can be raised only after every flag it requires."""
    s = Session(load_scenario(ROOT / "scenarios" / "bloodberry" / "salt_festival.yaml"), 0)
    agent = ScriptedAgent()
    while s.game.fm is None:
        s.answer(agent.act(s.view()))
    fm = s.game.fm
    fid, flag = next((f, x) for f, x in fm.flags.items() if x.requires)
    fm.raised = [r for r in fm.raised if r not in flag.requires]
    assert not fm._available(fid)
    fm.raised = list(fm.raised) + list(flag.requires)
    assert fm._available(fid)


def test_a_flag_map_that_never_ends_runs_out_of_cards_without_crashing(tmp_path):
    """Every card in a hand or on the map and none left to draw (G8 reshuffles only the discard pile): the camp
    moves or passes; all-scripted camps on a flag map whose end flag is out of reach ended in `RuntimeError: no card
    left in the deck or the discard pile`. Validation now refuses a condition no card fits, so the loaded map is
    changed after validation (as if every fitting card lay in the other camp's hand or layout)."""
    import yaml

    from engine.systems.bloodberry.coverage import _only_flag_map
    from engine.systems.bloodberry.scenario import SlotData

    raw = yaml.safe_load((ROOT / "scenarios" / "bloodberry" / "salt_festival.yaml").read_text(encoding="utf-8"))
    _only_flag_map(raw)
    p = tmp_path / "endless.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    for seed in range(3):
        sc = load_scenario(p)
        fm = sc.model.scenes[0].flag_map
        next(pl for pl in fm.places if pl.flag == "shiotsubo").condition = [SlotData(suit="♠", colour="red")]
        s = Session(sc, seed)
        agent = ScriptedAgent()
        while not s.is_over:
            s.answer(agent.act(s.view()))
        assert s.outcome is not None
