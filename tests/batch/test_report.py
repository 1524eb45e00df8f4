from __future__ import annotations

import json
import re

from agent.batch import run_batch, write_report

from .conftest import YOGARIBITO

#: every fight of the scenario (the ghouls, the count) lasts more than one round, so with the HOUSE safety cap at
#: one round every session is capped in both, whatever the seed and wherever the default cap is: the report has
#: stalled seeds to list with their replay commands (which must carry the rule option)
CAPPED = {"max_combat_rounds": 1}
RUNS = 4


def test_report_files(tmp_path):
    rep = run_batch(YOGARIBITO, RUNS, ["all=scripted"], 0, config=CAPPED).report()
    # the situation the test is about: every session finished, and every one hit the round cap in both fights
    assert rep["sessions"]["runs"] == rep["sessions"]["finished"] == RUNS
    assert rep["stalled"]["count"] == RUNS
    assert rep["caps"] == {"fight climax: round_cap": RUNS, "fight m_ghouls: round_cap": RUNS}
    assert any("safety cap" in w for w in rep["warnings"])
    rep["run"] = {"seats": ["all=scripted"], "seed": 0, "config": CAPPED}
    paths = write_report(rep, tmp_path / "out")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(rep))
    html = paths["html"].read_text(encoding="utf-8")
    assert 'id="warnings"' in html and "Warnings" in html
    assert html.count("<svg") >= 3
    assert not re.search(r"https?://", html)
    assert "<script" not in html and "<link" not in html
    # the stalled seeds come with the exact replay command, rule option included
    seeds = [x["seed"] for x in rep["stalled"]["items"]]
    assert seeds
    for seed in seeds:
        assert f"--seat all=scripted --config max_combat_rounds=1 --seed {seed} --log replay-{seed}.jsonl" in html
    for w in rep["warnings"]:
        assert w.split("(")[0].strip().replace("'", "&#39;") in html
