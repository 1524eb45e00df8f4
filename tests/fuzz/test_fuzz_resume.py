"""``trpg fuzz resume``: a fixed-seed trial kills ``trpg play``, tears its last line, resumes (killed again) and gets
the uninterrupted log back, byte for byte."""

from __future__ import annotations

from pathlib import Path

from agent.fuzz.resume import _LineCounter


def test_a_killed_and_torn_session_resumes_to_the_uninterrupted_log(fuzz):
    # case 0 kills `trpg play` after a random number of log lines (not a delay: no timing in the test)
    rc, text, summary = fuzz("resume", "--case", "0", "--seed", "0", "--tear", "1", "--max-kills", "1")
    assert rc == 0, text
    c = summary["counts"]
    assert c["trials"] == 1 and c["ok"] == 1
    assert c["kills"] >= 1 and c["torn"] >= 1
    assert c.get("resumed_identical", 0) + c.get("killed_after_end", 0) + c.get("killed_before_header", 0) == 1
    assert "ok: no failure" in text


def test_the_line_counter_follows_a_log_that_grows_and_is_cut(tmp_path: Path):
    p = tmp_path / "l.jsonl"
    n = _LineCounter(p)
    assert n.count() == 0
    p.write_bytes(b"a\nb\nc")
    assert n.count() == 2
    with open(p, "ab") as f:
        f.write(b"\nd\n")
    assert n.count() == 4
    p.write_bytes(b"a\n")  # resume cut the half-written line and starts again
    assert n.count() == 1
