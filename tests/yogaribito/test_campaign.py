"""夜狩り人 campaigns across scenarios (rules/yogaribito.md §7.11, engine/systems/yogaribito/campaign.py): the count's
night (night_of_the_count.yaml) continued by 黒翼の鐘楼 (belfry_of_black_wings.yaml) through a campaign file, as
``trpg play ... --campaign FILE`` writes and reads it; broken campaign files; the sequel's fights."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.cli import main
from agent.random_agent import RandomAgent
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.core.events import AnswerEvent, CheckEvent, InfoEvent
from engine.systems.yogaribito.campaign import CampaignError

ROOT = Path(__file__).resolve().parents[2]
FIRST = ROOT / "scenarios" / "yogaribito" / "night_of_the_count.yaml"
SECOND = ROOT / "scenarios" / "yogaribito" / "belfry_of_black_wings.yaml"
#: a seed of the first scenario in which 白鷺澪 dies in the climax (her player makes mio_2 in the afterplay)
DEATH_SEED = 34


def _play(s: Session, agent: Any = None) -> Session:
    agent = agent or ScriptedAgent()
    n = 0
    while not s.is_over:
        s.answer(agent.act(s.view()), policy=getattr(agent, "name", "scripted"))
        n += 1
        assert n < 20_000, "session does not end"
    return s


def _cli_play(scenario: Path, seed: int, camp: Path, log: Path) -> None:
    assert main(["play", str(scenario), "--seat", "all=scripted", "--seed", str(seed), "--log", str(log),
                 "--campaign", str(camp), "--quiet", "--overwrite"]) == 0


def test_round_trip_through_the_campaign_file_a_dead_pc_is_replaced_and_xp_carries(tmp_path):
    camp = tmp_path / "camp.yaml"
    _cli_play(FIRST, DEATH_SEED, camp, tmp_path / "one.jsonl")
    data = yaml.safe_load(camp.read_text(encoding="utf-8"))
    assert data["system"] == "yogaribito" and data["sessions_played"] == 1
    assert data["dead"] == ["mio"] and data["replacements"] == {"mio": "mio_2"}
    assert set(data["pcs"]) == {"jin", "mio_2"}
    banked = data["pcs"]["jin"]["growth"]["xp_unspent"]
    assert banked > 0  # the scripted D51 banks what it cannot spend (tech 7 → 8 costs 14)
    # the second scenario from the file: jin and mio_2 from the campaign, ren from the scenario, never the dead mio
    s = Session(load_scenario(SECOND), seed=3, options={"campaign": data, "campaign_file": str(camp)})
    chars = s.game.t.chars
    assert sorted(c.id for c in s.game.t.pcs()) == ["jin", "mio_2", "ren"]
    assert chars["jin"].xp_unspent == banked and chars["mio_2"].main_class == "white_magic"
    assert chars["mio_2"].creation["dice"] == data["pcs"]["mio_2"]["creation"]["dice"]
    carried = next(e for e in s.events if isinstance(e, InfoEvent) and e.topic == "campaign")
    assert carried.data == {"carried": ["jin", "mio_2"], "dead": ["mio"]}
    # and through the CLI: the file is written back after the second session, with the growth it paid for
    _cli_play(SECOND, 3, camp, tmp_path / "two.jsonl")
    after = yaml.safe_load(camp.read_text(encoding="utf-8"))
    assert after["sessions_played"] == 2 and after["dead"] == ["mio"]
    assert {"jin", "mio_2", "ren"} <= set(after["pcs"])
    jin = after["pcs"]["jin"]["growth"]
    assert jin["raises"].get("tech") == 1 and jin["xp_spent"] == 14  # the banked XP paid for tech 7 → 8


class _BuyBody(ScriptedAgent):
    """The scripted policy, except that 御堂迅's first growth purchase is 【体】 4 → 5 (8 XP; non-default D51)."""

    def act(self, view: Any) -> Any:
        d = view.decision
        if d.kind == "ap.spend" and d.actor == "jin" and "raise:body" in d.option_ids and not getattr(self, "_done", 0):
            self._done = 1
            return "raise:body"
        return super().act(view)


def test_the_grown_sheet_arrives_in_the_second_scenario():
    first = _play(Session(load_scenario(FIRST), seed=1), _BuyBody())
    camp = yaml.safe_load(yaml.safe_dump(first.outcome["campaign"], allow_unicode=True))  # as the file holds it
    grown = first.game.t.chars["jin"]
    assert grown.base["body"] == 5 and grown.xp_spent == 8
    second = Session(load_scenario(SECOND), seed=5, options={"campaign": camp})
    jin = second.game.t.chars["jin"]
    assert jin.base["body"] == 5 and jin.current["body"] == 5
    assert (jin.xp_spent, jin.xp_unspent) == (grown.xp_spent, grown.xp_unspent)
    assert jin.feats == grown.feats and [it.item for it in jin.items] == [it.item for it in grown.items]
    out = _play(second).outcome
    assert out["campaign"]["sessions_played"] == 2 and out["campaign"]["pcs"]["jin"]["growth"]["raises"]["body"] == 1


def _campaign() -> dict[str, Any]:
    first = _play(Session(load_scenario(FIRST), seed=1))
    data: dict[str, Any] = yaml.safe_load(yaml.safe_dump(first.outcome["campaign"], allow_unicode=True))
    return data


@pytest.mark.parametrize("break_it, field, problem", [
    (lambda d: d.update(relations={"jin|mio": 2}), "relations", "Extra inputs are not permitted"),
    (lambda d: d["pcs"]["jin"].update(main_class="wizard"), "pcs.jin", "unknown class 'wizard'"),
    (lambda d: d["pcs"]["mio"].update(feats=["holy_light"]), "pcs.mio", "exactly 4 feats"),
    (lambda d: d["pcs"]["jin"].update(colour="red"), "pcs.jin.colour", "Extra inputs are not permitted"),
    (lambda d: d.update(dead=["jin"]), "pcs.jin", "listed as dead"),
    (lambda d: d.update(sessions_played=-1), "sessions_played", "greater than or equal to 0"),
    (lambda d: d.update(replacements={"mio": "nobody"}), "replacements.mio", "neither a PC"),
], ids=["unknown-field", "illegal-class", "illegal-feats", "sheet-field", "dead-and-alive", "sessions", "replacement"])
def test_a_broken_campaign_file_is_refused_naming_the_file_and_the_field(break_it, field, problem):
    data = _campaign()
    break_it(data)
    with pytest.raises(CampaignError) as e:
        Session(load_scenario(SECOND), seed=1, options={"campaign": data, "campaign_file": "camp.yaml"})
    msg = str(e.value)
    assert msg.startswith("camp.yaml: invalid 夜狩り人 campaign: ") and f"field `{field}`" in msg and problem in msg, msg


def test_the_cli_reports_a_broken_campaign_file(tmp_path, capsys):
    data = _campaign()
    data["pcs"]["jin"]["main_class"] = "wizard"
    camp = tmp_path / "camp.yaml"
    camp.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    code = main(["play", str(SECOND), "--seat", "all=scripted", "--seed", "1", "--log", str(tmp_path / "x.jsonl"),
                 "--campaign", str(camp), "--quiet"])
    err = capsys.readouterr().err
    assert code != 0 and f"{camp}: invalid 夜狩り人 campaign: field `pcs.jin`" in err and "wizard" in err, err


def test_a_campaign_with_nobody_left_is_refused():
    data = {"system": "yogaribito", "sessions_played": 1, "dead": ["jin", "mio", "ren"], "pcs": {}}
    with pytest.raises(CampaignError, match="no PC is left"):
        Session(load_scenario(SECOND), seed=1, options={"campaign": data, "campaign_file": "camp.yaml"})


def test_the_sequel_fights_use_blockades_area_attacks_and_flying():
    """The sewer pack is held at 《結界》 (blockade contests, §7.4) and burnt in its engagement by 《聖なる光》 (an area
    attack, §7.5); the belfry's winged ghouls fly over the blockade (§7.4 flying)."""
    s = _play(Session(load_scenario(SECOND), seed=1))
    assert s.outcome["fights"] == {"m_sewer": "pcs_win", "climax": "pcs_win"}
    checks = Counter(e.check for e in s.events if isinstance(e, CheckEvent))
    assert checks["blockade_contest"] > 0
    feats = Counter(e.answer.get("choice") for e in s.events if isinstance(e, AnswerEvent) and e.kind == "cb.setup_feat")
    assert feats["feat:ward"] > 0
    areas = [e for e in s.events if isinstance(e, AnswerEvent) and e.kind == "cb.targets" and e.answer.get("choices")
             and len(e.answer["choices"]) > 1]
    assert areas, "no area attack hit two or more targets"
    flying = [e for e in s.events if getattr(e, "type", "") == "state" and e.path.startswith("winged_")
              and e.path.endswith(".effects") and any(x.get("flying") for x in (e.new or []))]
    assert {e.path.split(".")[0] for e in flying} == {"winged_a", "winged_b"}


@pytest.mark.parametrize("seed", range(4))
def test_the_sequel_ends_with_random_pcs_standalone_and_in_a_campaign(seed):
    data = _campaign() if seed % 2 else None
    options = {"campaign": data} if data else {}
    s = _play(Session(load_scenario(SECOND), seed=seed, options=options), RandomAgent(seed))
    assert s.outcome["ending"] in ("objective_achieved", "objective_failed")


def test_two_copies_of_a_stocked_item_give_options_a_player_tells_apart():
    """Fuzz finding: ap.spend offered "情報端末 (携帯) を常備化ポイントに戻す (+1)" twice for a PC with two copies."""
    s = Session(load_scenario(FIRST), seed=1)
    game = s.game
    c = game.t.chars["jin"]
    item = next(iter(c.creation.get("stocked") or [])) if c.creation.get("stocked") else None
    item = item or {"item": next(it.item for it in c.items), "slot": None}
    c.creation["stocked"] = [dict(item), dict(item)]
    pairs, _, _ = game._spend_options(c, 0, 0, [0, 1])
    returns = [label for oid, label in pairs if oid.startswith("return:")]
    assert len(returns) == 2 and len(set(returns)) == 2 and "#1" in returns[0] and "#2" in returns[1], returns
