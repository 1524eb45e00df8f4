"""「A」's prompt templates (prompts/a_game/): every decision a scripted game asks renders for its seat, with the
role's guidance for its kind; the SD's approvals name their reason codes; a PL is asked for short Japanese words."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from agent.llm import reply_schema, speaks
from agent.prompting import build_prompt
from agent.scripted import ScriptedAgent
from engine.core import Session, load_scenario
from engine.resources import resource_dir
from engine.systems.a_game.decisions import DECISIONS

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "a_game" / "yomichi_no_hikari.yaml"
GUIDE = {"gm": "SD の指針", "pc": "プレイの指針", "npc": "演じ方の指針"}


def test_every_kind_has_guidance_in_the_templates_of_the_seats_that_answer_it():
    src = {role: (resource_dir("prompts") / "a_game" / f"{role}.md.j2").read_text(encoding="utf-8")
           for role in ("gm", "pc", "npc")}
    for kind, spec in DECISIONS.items():
        roles = {"gm": ["gm"], "pc": ["pc"], "npc": ["npc"], "any": ["pc", "npc", "gm"]}[spec.who]
        if kind == "ban.choose_tie":
            roles = ["pc", "gm"]
        for role in roles:
            assert f'"{kind}"' in src[role], f"no guidance for {kind} in a_game/{role}.md.j2"


def test_a_scripted_game_renders_every_decision_for_its_seat():
    s = Session(load_scenario(SAMPLE), seed=7)
    agent = ScriptedAgent()
    rendered: Counter[str] = Counter()
    while not s.is_over:
        d = s.pending
        role = s.prompt_role(d.actor)
        if rendered[d.kind] < 2:
            say = speaks(d, role)
            p = build_prompt(d, s.transcript(d.actor), system="a_game", role=role, schema=reply_schema(d, say=say),
                             speaks=say, language="ja", roles=s.system.prompt_roles,
                             compact_observation=s.system.compact_observation)
            user = p.messages[1]["content"]
            assert f"{GUIDE[role]}: " in user, (d.kind, role)
            if d.kind == "sd.approve_element":
                assert "reject:omnipotent" in user and "reject:too_long" in user
            if d.kind == "pc.propose_element":
                assert "1単語か短いセンテンス" in user
            if role != "gm":
                assert s.game.sc.gm_notes not in "".join(m["content"] for m in p.messages)
            rendered[d.kind] += 1
        s.answer(agent.act(s.view(d)), policy="scripted")
    assert len(rendered) >= 25
