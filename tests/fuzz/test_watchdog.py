"""The fuzzers' watchdog counts CPU time, with a wall-clock backstop: a worker starved by the load of a shared machine
is not a hang (a 20,000-session run beside the CI had 16 false hangs when it counted wall clock)."""

from __future__ import annotations

import threading
import time

import pytest

from agent.fuzz.common import Hang, watchdog


def test_waiting_is_not_computing_but_the_backstop_stops_it() -> None:
    with watchdog(0.2, wall_factor=5) as tick:
        time.sleep(0.5)  # 0.5 s of wall clock, almost no CPU: not a hang yet
        tick()
        with pytest.raises(Hang, match="wall clock"):
            time.sleep(30)  # the backstop (1 s) interrupts it


def test_computing_past_the_cpu_limit_is_a_hang() -> None:
    with pytest.raises(Hang, match="of CPU"), watchdog(0.2, wall_factor=50):
        while True:
            sum(range(1000))
    with watchdog(0.2):  # the timers are off again after it
        time.sleep(0.3)


def test_off_the_main_thread_check_counts_the_threads_cpu() -> None:
    got: list[str] = []

    def work() -> None:
        with watchdog(0.2, wall_factor=50) as tick:
            time.sleep(0.3)
            tick()  # sleeping is no CPU
            try:
                while True:
                    sum(range(1000))
                    tick()
            except Hang as e:
                got.append(str(e))

    th = threading.Thread(target=work)
    th.start()
    th.join(10)
    assert got and "of CPU" in got[0]
