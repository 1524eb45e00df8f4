"""The debug mode of kept values (``engine.core.kept``): a value a rule keeps between questions is recomputed at
every reuse and compared, so a change made behind ``ctx.state``'s back is caught where it is read, not as a replay
that differs a thousand decisions later. The conformance suite and the property tests run in this mode."""

from __future__ import annotations

import pytest

from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario, systems
from engine.core import kept
from engine.core.kept import StaleKept, checking_kept

YOGARIBITO = next(s for s in systems() if s.id == "yogaribito")
BLOODBERRY = next(s for s in systems() if s.id == "bloodberry")


def _in_combat(seed: int = 0) -> Session:
    s = Session(load_scenario(YOGARIBITO.sample_scenarios[0]), seed)
    agent = ScriptedAgent()
    while not s.is_over:
        if s.game.t.battlefield is not None and s.game.combatants():
            return s
        d = s.pending
        s.answer(agent.act(s.view(d)), policy=agent.name, seq=d.seq)
    pytest.fail("the sample never reached a battle")


def test_a_change_behind_the_log_is_caught_where_the_kept_value_is_read():
    s = _in_combat()
    g = s.game
    x = g.combatants()[0]
    with checking_kept():
        first = g._char_battle_view(x.id)
        assert g._char_battle_view(x.id) is first  # unchanged: the same kept view, recomputed equal
        x.current["life"] = x.current.get("life", 0) - 1  # not through ctx.state: the table moved behind the log
        with pytest.raises(StaleKept, match=r"'char_views'.*stale.*ctx\.state"):
            g._char_battle_view(x.id)
    # without the debug mode the stale view is served: what the mode is for
    assert not kept.CHECK
    assert g._char_battle_view(x.id)["life"] == first["life"] == x.current["life"] + 1


def test_a_change_through_the_log_renews_the_kept_value():
    s = _in_combat()
    g = s.game
    x = g.combatants()[0]
    with checking_kept():
        first = g._char_battle_view(x.id)
        old = x.current.get("life", 0)
        x.current["life"] = old - 1
        g.ctx.state(f"{x.id}.current.life", old, old - 1, rule="test")
        again = g._char_battle_view(x.id)
        assert again is not first and again["life"] == old - 1


def test_kept_targets_hold_the_tables_own_characters():
    s = _in_combat()
    g = s.game
    c = next(c for c in g.combatants() if g.attack_sources(c))
    src = g.attack_sources(c)[0]
    with checking_kept():
        g.legal_targets(c, src)
        g.legal_targets(c, src)  # a reuse, recomputed: the same characters, the very objects
        g.t.chars = dict(g.t.chars)  # a new roster is a new key: nothing stale is served
        g.legal_targets(c, src)


def test_bloodberrys_kept_pc_order_is_checked():
    s = Session(load_scenario(BLOODBERRY.sample_scenarios[0]), 0)
    t = s.game.t
    with checking_kept():
        pcs = t.pcs()
        assert t.pcs() is pcs
        a, b = pcs[0], pcs[1]
        a.number, b.number = b.number, a.number  # renumbered behind the log: the kept order is stale
        with pytest.raises(StaleKept, match="'pcs'"):
            t.pcs()


def test_the_mode_is_read_from_the_environment(tmp_path):
    import subprocess
    import sys
    code = "from engine.core import kept; print(kept.CHECK)"
    on = subprocess.run([sys.executable, "-c", code], env={"TRPG_CHECK_KEPT": "1", "PATH": ""}, capture_output=True,
                        text=True, cwd=str(tmp_path.parent), check=False)
    off = subprocess.run([sys.executable, "-c", code], env={"TRPG_CHECK_KEPT": "0", "PATH": ""}, capture_output=True,
                         text=True, cwd=str(tmp_path.parent), check=False)
    assert (on.stdout.strip(), off.stdout.strip()) == ("True", "False"), (on.stderr, off.stderr)
