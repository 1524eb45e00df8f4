from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_paragraph_error(err: str) -> None:
    assert "Traceback" not in err
    assert err.strip() and "\n" not in err.strip()


def test_bad_scenario_file_is_one_paragraph_and_exit_2(capsys, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("system: toy\nid: x\ntitle: t\ngoal: many\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", bad)
    assert code == 2
    one_paragraph_error(err)
    assert str(bad) in err and "goal" in err
    code, out, err = run(capsys, "play", bad, "--seat", "all=scripted", "--log", tmp_path / "x.jsonl")
    assert code == 2 and "goal" in err
    one_paragraph_error(err)
    assert not (tmp_path / "x.jsonl").exists()


def test_validate_ok_and_mixed(capsys, toy_path, tmp_path):
    code, out, _ = run(capsys, "validate", toy_path)
    assert code == 0 and out.startswith("ok:")
    code, out, err = run(capsys, "validate", toy_path, tmp_path / "missing.yaml")
    assert code == 2 and "ok:" in out and "cannot read the file" in err


def test_a_broken_file_without_a_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("system: [unclosed\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TRPG_DEBUG", None)
    p = subprocess.run([sys.executable, "-m", "agent.cli", "validate", str(bad)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 2
    one_paragraph_error(p.stderr)
    assert "broken YAML" in p.stderr


@pytest.mark.parametrize("argv, needle", [
    (["play"], "the following arguments are required"),
    (["fly"], "invalid choice"),
    (["diagram", "nosuch"], "unsupported system"),
    (["replay", "nowhere.jsonl"], "cannot read the log"),
    (["schema", "--system", "nosuch"], "unsupported system"),
])
def test_usage_errors(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err
    one_paragraph_error(err)


def test_play_replay_resume(capsys, toy_path, tmp_path):
    log = tmp_path / "a.jsonl"
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=scripted", "--seat", "pcs=random", "--seed", 7,
                         "--log", log, "--config", "rounds=2")
    assert code == 0, err
    assert "人形たちが目を覚ます。" in out and "winner" in out and str(log) in out
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["seed"] == 7 and header["config"] == {"rounds": 2}
    assert header["seats"] == {"all": "scripted", "pcs": "random"}

    code, out, err = run(capsys, "replay", log, "--verify")
    assert code == 0 and out.startswith("ok:") and "6 decisions" in out
    code, out, err = run(capsys, "replay", log, "--format", "html", "-o", tmp_path / "a.html")
    assert code == 0 and (tmp_path / "a.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    code, out, err = run(capsys, "replay", log)
    assert code == 0 and out.startswith("# toy_demo")
    code, out, err = run(capsys, "replay", log, "--format", "audit")
    assert code == 0 and out.startswith("# toy_demo")
    # the story a seat saw, as a chat log (Markdown, or one HTML page)
    code, out, err = run(capsys, "replay", log, "--format", "story", "--seat", "aoi")
    assert code == 0, err
    assert out.startswith("# ") and "aoi" not in out.splitlines()[0] and "**GM**" in out and "## エンディング" in out
    code, out, err = run(capsys, "replay", log, "--format", "story", "--html", "-o", tmp_path / "s.html")
    assert code == 0 and "GM の見たセッション" in (tmp_path / "s.html").read_text(encoding="utf-8")
    code, out, err = run(capsys, "replay", log, "--format", "story-html", "--lang", "en")
    assert code == 0 and out.startswith("<!DOCTYPE html>") and "the GM&#39;s view" in out
    code, out, err = run(capsys, "replay", log, "--format", "story", "--seat", "zed")
    assert code == 2 and "zed" in err

    # the same log again is refused; resume of a finished log too
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=scripted", "--log", log)
    assert code == 2 and "already exists" in err
    code, out, err = run(capsys, "resume", log)
    assert code == 2 and "finished" in err
    one_paragraph_error(err)

    # crash half-way, resume, same bytes
    full = log.read_bytes()
    log.write_bytes(full[: len(full) // 2])
    code, out, err = run(capsys, "resume", log, "--quiet")
    assert code == 0, err
    assert log.read_bytes() == full


def test_play_quiet_and_default_log_path(capsys, toy_path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=random", "--seed", 3, "--quiet")
    assert code == 0 and out == "" and err == ""
    assert (tmp_path / "logs" / "toy_demo-3.jsonl").is_file()


def test_bad_seat_and_config(capsys, toy_path, tmp_path):
    code, out, err = run(capsys, "play", toy_path, "--seat", "zoe=human", "--log", tmp_path / "z.jsonl")
    assert code == 2 and "zoe" in err and "aoi" in err
    assert not (tmp_path / "z.jsonl").exists()
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=genius", "--log", tmp_path / "z.jsonl")
    assert code == 2 and "unknown policy" in err
    code, out, err = run(capsys, "play", toy_path, "--config", "rounds=many", "--log", tmp_path / "z.jsonl")
    assert code == 2 and "rounds" in err
    one_paragraph_error(err)


def test_human_quits_and_resumes(capsys, toy_path, tmp_path, monkeypatch):
    log = tmp_path / "h.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n\nquit\n"))
    code, out, err = run(capsys, "play", toy_path, "--seed", 1, "--log", log)
    assert code == 0 and f"保存しました。再開するには trpg resume {log}" in out  # Japanese by default
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n\n2\n\n"))
    code, out, err = run(capsys, "resume", log, "--lang", "en")
    assert code == 0, err
    assert "resumed" in out and "winner" in out


def test_systems_schema_diagram(capsys, tmp_path):
    code, out, _ = run(capsys, "systems")
    assert code == 0 and "toy" in out
    code, out, _ = run(capsys, "schema", "--system", "toy")
    assert code == 0 and json.loads(out)["properties"]["goal"]["maximum"] == 100
    code, out, _ = run(capsys, "schema", "-o", tmp_path / "all.json")
    assert code == 0 and "toy" in json.loads((tmp_path / "all.json").read_text(encoding="utf-8"))["$defs"]
    code, out, _ = run(capsys, "diagram", "toy")
    assert code == 0 and "stateDiagram-v2" in out and "setup --> play: start" in out
    code, out, _ = run(capsys, "diagram", "toy", "-o", tmp_path / "d")
    assert code == 0 and (tmp_path / "d" / "toy_toy_flow.mmd").is_file()


def test_new_character_without_creation_support(capsys):
    code, out, err = run(capsys, "new-character", "toy")
    assert code == 2 and "not available" in err
    one_paragraph_error(err)


def test_examples_runner_missing_is_a_clear_message(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "engine.core.examples", None)  # as if the runner were not installed
    code, out, err = run(capsys, "examples", tmp_path / "x.yaml")
    assert code == 2 and "not available" in err
    one_paragraph_error(err)


def test_examples_with_an_unreadable_file_fail(capsys, tmp_path):
    code, out, err = run(capsys, "examples", tmp_path / "x.yaml")
    assert code == 1 and "x.yaml" in out and "Traceback" not in out + err


def test_check_lines_name_the_rollers_by_their_display_names():
    from agent.cli import check_lines
    from engine.core.events import CheckEvent, CheckRoll

    names = {"beni": "御堂 紅", "aoi": "七瀬 葵", "count": "夜の伯爵"}.get
    one = CheckEvent(id="k1", check="hit", rule="§7.5", label="《吸血》の命中判定",
                     rolls=[CheckRoll(who="count", pool=2, faces=[5, 1], ach=1, target=1, success=True)])
    assert check_lines(one, lambda i: names(i, i)) == ["《吸血》の命中判定: 夜の伯爵 2D [5 1] → 達成値 1 / 目標 1 成功"]
    # a single roller already named in the label is not repeated; with two rollers each line names its own
    solo = CheckEvent(id="k2", check="judge", rule="§5", label="御堂 紅: 南京錠を開ける",
                      rolls=[CheckRoll(who="beni", pool=1, faces=[6], ach=1, target=1, success=True)])
    assert check_lines(solo, lambda i: names(i, i)) == ["御堂 紅: 南京錠を開ける: 1D [6] → 達成値 1 / 目標 1 成功"]
    two = CheckEvent(id="k3", check="judge", rule="§5", label="御堂 紅 → 七瀬 葵 誘惑", rolls=[
        CheckRoll(who="beni", pool=1, faces=[6], ach=1, target=1, success=True),
        CheckRoll(who="aoi", pool=1, faces=[2], ach=0, target=1, success=False)])
    lines = check_lines(two, lambda i: names(i, i))
    assert lines[0].startswith("御堂 紅 → 七瀬 葵 誘惑: 御堂 紅 1D") and lines[1].startswith("御堂 紅 → 七瀬 葵 誘惑: 七瀬 葵 1D")
    assert check_lines(one) == ["《吸血》の命中判定: count 2D [5 1] → 達成値 1 / 目標 1 成功"]  # ids without a session
    # a check without dice of its own (an opposed check's verdict, damage) shows its result
    verdict = CheckEvent(id="k4", check="damage", rule="§7.7.1", label="ダメージ → 御堂 紅", result="3")
    assert check_lines(verdict) == ["ダメージ → 御堂 紅: 3"]


def test_replay_verify_refuses_a_log_of_another_system_version(capsys, toy_path, tmp_path):
    log = tmp_path / "a.jsonl"
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=scripted", "--seed", 3, "--log", log, "--quiet")
    assert code == 0, err
    lines = log.read_text(encoding="utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    assert header["system_version"] == "0.1"
    header["system_version"] = "0.0.9"
    lines[0] = json.dumps(header, ensure_ascii=False, separators=(",", ":")) + "\n"
    log.write_text("".join(lines), encoding="utf-8")
    code, out, err = run(capsys, "replay", log, "--verify")
    assert code == 2 and not out
    one_paragraph_error(err)
    assert err.strip() == (
        f"trpg: error: {log}: this log was played with おもちゃ (toy) 0.0.9; this install has version 0.1, "
        "whose rules differ, so it cannot be replayed or resumed"
    )


def test_seats_given_override_only_what_they_name(capsys, toy_path, tmp_path, monkeypatch):
    """`--seat gm=random` changes the GM's seat and nothing else: the first PC stays human (it used to make the
    whole table scripted, with no human seat left)."""
    def no_input(prompt=""):
        raise EOFError

    monkeypatch.setattr("builtins.input", no_input)
    log = tmp_path / "s.jsonl"
    code, out, err = run(capsys, "play", toy_path, "--seat", "gm=random", "--seed", 1, "--log", log)
    assert code == 0, err  # no input: the human seat's first question ends the run, saved
    header = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
    assert header["seats"] == {"all": "scripted", "first_pc": "human", "gm": "random"}
    assert "保存しました。再開するには" in out
    # naming `all` names everyone: no human seat is kept
    log2 = tmp_path / "t.jsonl"
    code, out, err = run(capsys, "play", toy_path, "--seat", "all=scripted", "--seed", 1, "--log", log2, "--quiet")
    assert code == 0, err
    assert json.loads(log2.read_text(encoding="utf-8").splitlines()[0])["seats"] == {"all": "scripted"}
