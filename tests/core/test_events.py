from __future__ import annotations

import pytest

from engine.core import EventLog, read_log
from engine.core.events import CheckEvent, CheckRoll, HeaderEvent, LogReadError, NarrationEvent, RollEvent

HEADER = HeaderEvent(package_version="0", system="toy", system_version="0.1", scenario_id="s", scenario_version="1",
                     scenario_path="s.yaml", scenario_sha256="0" * 64, seed=3, seats={"all": "scripted"})


def test_round_trip(tmp_path):
    events = [HEADER, RollEvent(purpose="判定", sides=6, value=4), NarrationEvent(actor="gm", text="雛が笑った。"),
              CheckEvent(id="k1", check="c", rule="§5", data={"faces": [1, 6], "ok": True},
                            rolls=[CheckRoll(who="aoi", pool=2, faces=[1, 6], target=3, ach=1, success=False)], to=["aoi", "gm"])]
    log = EventLog(tmp_path / "a.jsonl")
    for e in events:
        log.write(e)
    log.close()
    got, truncated = read_log(tmp_path / "a.jsonl")
    assert got == events and not truncated
    assert "雛が笑った" in (tmp_path / "a.jsonl").read_text(encoding="utf-8")  # Japanese kept as written


def test_a_line_cut_inside_a_multibyte_character_is_dropped(tmp_path):
    p = tmp_path / "a.jsonl"
    log = EventLog(p)
    log.write(HEADER)
    log.write(NarrationEvent(actor="gm", text="雛が笑った。"))
    log.close()
    raw = p.read_bytes()
    p.write_bytes(raw[:-8])  # inside the last line's UTF-8
    got, truncated = read_log(p)
    assert got == [HEADER] and truncated


def test_not_a_log(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_text('{"type": "roll", "purpose": "x", "sides": 6, "value": 1}\n', encoding="utf-8")
    with pytest.raises(LogReadError, match="header"):
        read_log(p)
    p.write_text(HEADER.model_dump_json() + "\nnot json\n" + HEADER.model_dump_json() + "\n", encoding="utf-8")
    with pytest.raises(LogReadError, match="line 2"):
        read_log(p)
