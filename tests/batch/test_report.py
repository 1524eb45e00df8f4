from __future__ import annotations

import json
import re

from agent.batch import run_batch, write_report

from .conftest import YOGARIBITO


def test_report_files(tmp_path):
    rep = run_batch(YOGARIBITO, 12, ["all=scripted"], 0).report()
    rep["run"] = {"seats": ["all=scripted"], "seed": 0}
    paths = write_report(rep, tmp_path / "out")
    data = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(rep))
    html = paths["html"].read_text(encoding="utf-8")
    assert 'id="warnings"' in html and "Warnings" in html
    assert html.count("<svg") >= 3
    assert not re.search(r"https?://", html)
    assert "<script" not in html and "<link" not in html
    # the stalled seeds come with the exact replay command
    seed = rep["stalled"]["items"][0]["seed"]
    assert f"--seat all=scripted --seed {seed}" in html
    for w in rep["warnings"]:
        assert w.split("(")[0].strip().replace("'", "&#39;") in html
