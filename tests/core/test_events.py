from __future__ import annotations

import pytest

from engine.core import EventLog, read_log, systems
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


@pytest.mark.parametrize("system", [s.id for s in systems()])
def test_lines_are_model_dump_json_for_every_event_of_a_session(tmp_path, system):
    """EventLog writes pydantic's serializer bytes directly: each line must be exactly ``model_dump_json()``, for
    every kind of event a whole scripted table of each sample scenario writes (standing answers declared, as
    ``trpg play`` does); replay and resume rest on it."""
    from agent.table import SeatSpec, Table
    from engine.core import Session, load_scenario

    info = next(s for s in systems() if s.id == system)
    for scenario in info.sample_scenarios:
        p = tmp_path / f"{scenario.stem}.jsonl"
        s = Session(load_scenario(scenario), 7, log_path=p, seats={"all": "scripted"})
        Table(s, SeatSpec.parse(["all=scripted"])).run()
        assert s.is_over
        kinds = {type(e).__name__ for e in s.events}
        assert {"HeaderEvent", "StandingEvent", "DecisionEvent", "AnswerEvent", "RollEvent", "EndEvent"} <= kinds
        assert p.read_bytes() == "".join(e.model_dump_json() + "\n" for e in s.events).encode("utf-8")
        got, truncated = read_log(p)
        assert got == s.events and not truncated


def test_a_short_write_is_completed(tmp_path):
    class Short:
        """a file that takes at most 5 bytes a call, as a pipe or a signal may leave a raw write"""

        def __init__(self):
            self.data = b""

        def write(self, b):
            self.data += bytes(b[:5])
            return min(5, len(b))

        def close(self):
            pass

    log = EventLog(tmp_path / "a.jsonl")
    log._f.close()
    log._f = Short()
    log.write(NarrationEvent(actor="gm", text="雛が笑った。"))
    log.write_line("{}")
    assert log._f.data == (NarrationEvent(actor="gm", text="雛が笑った。").model_dump_json() + "\n{}\n").encode("utf-8")


def test_append_mode_and_bad_mode(tmp_path):
    p = tmp_path / "a.jsonl"
    log = EventLog(p)
    log.write(HEADER)
    log.close()
    log = EventLog(p, mode="a")
    log.write(NarrationEvent(actor="gm", text="続き"))
    log.close()
    got, truncated = read_log(p)
    assert got == [HEADER, NarrationEvent(actor="gm", text="続き")] and not truncated
    with pytest.raises(ValueError, match="mode"):
        EventLog(p, mode="r")
    with pytest.raises(ValueError, match="closed"):
        log.write(HEADER)
