"""``trpg serve`` in headless Chromium (Playwright driving the system's /usr/bin/chromium): for every sample scenario of
every registered system, a whole session with the scripted GM and seats, the first PC played by clicking — the
option the page marks as suggested (the scripted policy's choice from that seat's view), check boxes and forms as
prefilled — until the ending; the story that arrived on screen (server-sent events) is the story of the log for
that seat, item by item. And a session resumed after the server was stopped mid-way, from the index page, to the
end. Screenshots of these runs: ``docs/screenshots/`` (``python tests/web/test_browser.py --shots``)."""

from __future__ import annotations

import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

if __name__ == "__main__":  # pragma: no cover - `python tests/web/test_browser.py --shots`: the checkout's root first
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

uvicorn = pytest.importorskip("uvicorn", reason="the web extra (pip install -e '.[web]')")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright (the dev extra)")

from agent.web.app import make_app  # noqa: E402
from engine.core.events import read_log  # noqa: E402
from engine.core.registry import systems  # noqa: E402
from engine.core.replay import session_from_log  # noqa: E402
from engine.core.story import names_for  # noqa: E402
from engine.core.story_log import story_items  # noqa: E402
from tests.test_terminal_view import ALLOWED, GAME_LABEL  # noqa: E402

#: the browser page's own ASCII: the app's name (the log's path, shown at the end, is left out of the check); 「A vs
#: B」, as Japanese write a match-up (夜狩り人's 封鎖の対決)
WEB = {"TRPG", "vs"}
#: the games' own terms in Latin letters, met in the climax or the continuation (ラストフラグメント's SP and AP: SP5)
GAME_TERM = re.compile(r"(?:SP|AP)\d*")

CHROMIUM = Path("/usr/bin/chromium")
SAMPLES = [p for s in systems() for p in s.sample_scenarios]
MAX_CLICKS = 4000


class Server:
    """uvicorn serving ``make_app(logs)`` on a free port of 127.0.0.1, in a thread; ``stop()`` ends it."""

    def __init__(self, logs: Path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.app = self._make_app(logs)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.05)
        assert self.server.started, "the server did not start"
        self.url = f"http://127.0.0.1:{self.port}"

    def _make_app(self, logs: Path):
        return make_app(logs)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail("browser tests need Debian's chromium at /usr/bin/chromium (apt-get install -y chromium "
                    "fonts-noto-cjk; .ci/run installs it)")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM),
                              args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                    "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


def start_table(page, server: Server, scenario: Path, seed: int) -> None:
    page.goto(server.url + "/")
    value = page.eval_on_selector_all("select[name=scenario] option", "(os, name) => os.map(o => o.value)"
                                      ".find(v => v.endsWith('/' + name))", scenario.name)
    assert value, f"{scenario.name} is not offered on the index page"
    page.select_option("select[name=scenario]", value)
    page.fill("input[name=seed]", str(seed))
    page.click("form.new button[type=submit]")
    page.wait_for_selector("#decision [data-state=asking], #decision [data-state=over]", timeout=120_000)


#: what the player read: every decision's panel and the side panel as they were shown (``click_on`` adds to it)
SEEN: list[str] = []


def click_on(page, clicks: int) -> int:
    """Answer ``clicks`` decisions (or until the ending) by clicking what the page suggests; returns how many."""
    n = 0
    while n < clicks:
        SEEN.append(page.inner_text("#decision"))
        SEEN.append(page.inner_text("#sheet"))
        state = page.get_attribute("#decision [data-state]", "data-state")
        if state == "over":
            return n
        assert state == "asking", f"the table is {state}: {page.inner_text('#decision')}"
        seq = page.get_attribute("#decision form", "data-seq")
        form = page.locator(f"#decision form[data-seq='{seq}']")
        if form.locator("button[data-suggested]").count():
            form.locator("button[data-suggested]").first.click()
        else:  # nothing suggested (the policy had no view of it): the first option
            form.locator("button").first.click()
        page.wait_for_function(
            "seq => { const e = document.querySelector('#decision [data-state]');"
            " return e && (e.dataset.state === 'over' || (e.dataset.state === 'asking' && e.dataset.seq !== seq)); }",
            arg=seq, timeout=120_000)
        assert not page.inner_text("#error").strip(), page.inner_text("#error")
        n += 1
    return n


def screen_story(page) -> list[str]:
    return page.eval_on_selector_all("#story .item", """es => es.map(e => {
        if (e.classList.contains('heading')) return e.textContent;
        if (e.classList.contains('ending')) return e.querySelector('.who').textContent;
        const t = e.querySelector('.text'); return t.childNodes[0] ? t.childNodes[0].textContent : '';
    })""")


def log_story(log: Path, seat: str, server: Server) -> list[str]:
    """The story of the log for ``seat``, its characters named as the table named them (the names the seat's
    observations showed over the session, which the page keeps)."""
    events, _ = read_log(log)
    session = session_from_log(log, for_resume=False)
    (t,) = server.app.state.tables.values()
    names = {**names_for(session.system, session.observation(seat)), **t.names.get(seat, {})}
    out = []
    for it in story_items(events, session.system, seat=seat, names=names):
        if it.kind == "speech":
            out.append(f"「{it.text}」")
        elif it.kind == "ending" or it.kind == "heading":
            out.append(it.text)
        else:
            out.append(it.text)
    return out


def first_pc(server: Server) -> str:
    (t,) = server.app.state.tables.values()
    return t.viewer


@pytest.mark.parametrize("scenario", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_whole_session_by_clicking(scenario, browser, tmp_path):
    server = Server(tmp_path / "logs")
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    SEEN.clear()
    try:
        start_table(page, server, scenario, seed=7)
        clicks = click_on(page, MAX_CLICKS)
        assert page.get_attribute("#decision [data-state]", "data-state") == "over", f"not over after {clicks} clicks"
        assert clicks > 0
        (log,) = (tmp_path / "logs").glob("*.jsonl")
        seat = first_pc(server)
        live = screen_story(page)
        expected = log_story(log, seat, server)
        # the story built up by the events is the log's, item by item; a line may name a character by id where the
        # seat learned the name only after that line arrived (the page rendered afresh names it, below): such a line
        # is the log's once its ids are read as those names
        assert len(live) == len(expected)
        (t,) = server.app.state.tables.values()
        names = sorted(t.names.get(seat, {}).items(), key=lambda kv: -len(kv[0]))

        def named(line: str) -> str:
            for cid, name in names:
                line = line.replace(cid, name)
            return line

        assert [named(a) if a != b else a for a, b in zip(live, expected)] == expected
        page.reload()
        page.wait_for_selector("#decision [data-state=over]")
        assert screen_story(page) == expected
        # what a Japanese player read: no code id, rule reference or English interface word
        text = "\n".join([*SEEN, page.inner_text("body")]).replace(str(log), "")
        info = next(i for i in systems() if scenario in i.sample_scenarios)
        assert "§" not in text, [line for line in text.splitlines() if "§" in line][:3]
        kinds = [k for k in info.decision_table if k in text]
        assert not kinds, kinds
        words = {w for w in re.findall(r"[A-Za-z][A-Za-z_]*\d*", text)
                 if not GAME_LABEL.fullmatch(w) and not GAME_TERM.fullmatch(w)} - ALLOWED - WEB
        assert not words, sorted(words)[:60]
    finally:
        page.close()
        server.stop()


@pytest.mark.parametrize("scenario", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_session_resumed_after_the_server_stopped(scenario, browser, tmp_path):
    logs = tmp_path / "logs"
    server = Server(logs)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        start_table(page, server, scenario, seed=3)
        assert click_on(page, 6) == 6
        seat = first_pc(server)
    finally:
        page.close()
        server.stop()
    (log,) = logs.glob("*.jsonl")
    before = log.read_bytes()
    server = Server(logs)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(server.url + "/")
        page.click(f"form.inline:has(input[value='{log.name}']) button")
        page.wait_for_selector("#decision [data-state=asking]", timeout=120_000)
        assert screen_story(page) == log_story(log, seat, server), "the resumed page shows the story so far"
        click_on(page, MAX_CLICKS)
        assert page.get_attribute("#decision [data-state]", "data-state") == "over"
        assert log.read_bytes().startswith(before[: before.rfind(b"\n") + 1]), "the log was carried on, not rewritten"
        assert screen_story(page) == log_story(log, seat, server)
        page.goto(server.url + "/")
        assert page.query_selector(f"a[href='/story/{log.name}']"), "a finished table offers its story"
    finally:
        page.close()
        server.stop()


def test_an_illegal_answer_is_refused_on_the_page(browser, tmp_path):
    """A stale answer (the decision's seq no longer pending) is refused with the page's message; nothing changes."""
    scenario = next(p for p in SAMPLES if p.stem == "shuuden_no_mukou")
    server = Server(tmp_path / "logs")
    page = browser.new_page()
    try:
        start_table(page, server, scenario, seed=3)
        seq = page.get_attribute("#decision form", "data-seq")
        page.evaluate("seq => { document.querySelector('#decision input[name=seq]').value = String(Number(seq) + 1000); }",
                      seq)
        page.click("#decision button")
        page.wait_for_selector("#error .error")
        assert "もう答えています" in page.inner_text("#error")
        assert page.get_attribute("#decision form", "data-seq") == seq
    finally:
        page.close()
        server.stop()


def test_standing_answers_are_set_on_the_page(browser, tmp_path):
    """The side panel's 常時応答: the seat picks standing answers for two windows and saves; the engine logs them and
    resolves those windows from then on without asking the page."""
    from engine.core.events import AutoEvent, DecisionEvent, StandingEvent

    scenario = next(p for p in SAMPLES if p.stem == "inoiri_dolls")
    server = Server(tmp_path / "logs")
    page = browser.new_page()
    try:
        start_table(page, server, scenario, seed=2)
        page.click("form.standing summary")
        text = page.inner_text("form.standing")
        assert "判定の放棄" in text and "振り直し" in text and "毎回たずねる" in text
        assert not re.search(r"[a-z]+\.[a-z_]+|default|always", text), text  # no ids in what the player reads
        page.select_option("select[data-kind='j.abandon']", "default")
        page.select_option("select[data-kind='j.reroll']", "always:stop")
        page.click("form.standing button[type=submit]")
        page.wait_for_selector("form.standing .saved")
        assert page.input_value("select[data-kind='j.reroll']") == "always:stop"
        click_on(page, 80)
        log = next((tmp_path / "logs").glob("*.jsonl"))
        events, _ = read_log(log)
        me = first_pc(server)
        marks = [e for e in events if isinstance(e, StandingEvent)]
        assert {me: {"j.abandon": "default", "j.reroll": "always:stop"}} in [m.answers for m in marks]
        at = events.index(next(m for m in marks if me in m.answers))
        later = events[at + 1:]
        assert any(isinstance(e, AutoEvent) and e.actor == me and e.kind == "j.abandon" for e in later)
        asked = [e.kind for e in later if isinstance(e, DecisionEvent) and e.actor == me]
        assert asked and "j.abandon" not in asked and "j.reroll" not in asked
    finally:
        page.close()
        server.stop()


if __name__ == "__main__" and "--shots" in sys.argv:  # pragma: no cover
    # screenshots for docs/: a few decisions into each system's first sample
    from playwright.sync_api import sync_playwright

    out = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    import tempfile

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-background-networking"])
        for info in systems():
            sc = info.sample_scenarios[0]
            srv = Server(Path(tempfile.mkdtemp()))
            pg = b.new_page(viewport={"width": 1280, "height": 800})
            start_table(pg, srv, sc, seed=7)
            click_on(pg, int(sys.argv[sys.argv.index("--shots") + 1]) if len(sys.argv) > 2 else 30)
            pg.screenshot(path=str(out / f"browser-{info.id}.png"))
            pg.close()
            srv.stop()
        b.close()


def test_a_table_with_a_language_model_gm(browser, tmp_path):
    """Any seat may be a model: the GM on an OpenAI-compatible server (the tests' fake one), set up by the same
    ``--llm-*`` flags as ``trpg play``; the log's header names the model, the GM's decisions went to it, and the
    human plays on by clicking."""
    import contextlib

    from agent.cli import build_parser, serve_llm_factory
    from engine.core.events import ModelCallEvent
    from tests.llm.conftest import FAKE_SERVER, running_fake_server

    script = tmp_path / "fake_server.py"
    script.write_text(FAKE_SERVER, encoding="utf-8")
    scenario = next(p for p in SAMPLES if p.stem == "shuuden_no_mukou")
    with running_fake_server(script) as base, contextlib.ExitStack() as stack:
        args = build_parser().parse_args(["serve", "--llm-base-url", base, "--llm-model", "fake-model"])
        page = browser.new_page()
        server = _ServerWith(tmp_path / "logs", serve_llm_factory(args, stack))
        try:
            page.goto(server.url + "/")
            value = page.eval_on_selector_all("select[name=scenario] option", "(os, n) => os.map(o => o.value)"
                                              ".find(v => v.endsWith('/' + n))", scenario.name)
            page.select_option("select[name=scenario]", value)
            page.fill("input[name=seed]", "5")
            page.fill("input[name=others]", "all=scripted, gm=llm")
            page.click("form.new button[type=submit]")
            page.wait_for_selector("#decision [data-state=asking]", timeout=120_000)
            click_on(page, 5)
        finally:
            page.close()
            server.stop()
    (log,) = (tmp_path / "logs").glob("*.jsonl")
    events, _ = read_log(log)
    assert events[0].seats["gm"] == "llm:fake-model"
    assert any(isinstance(e, ModelCallEvent) and e.actor == "gm" for e in events)


class _ServerWith(Server):
    """A server whose app seats language models through ``llm_factory``."""

    def __init__(self, logs: Path, llm_factory):
        self._factory = llm_factory
        super().__init__(logs)

    def _make_app(self, logs: Path):
        return make_app(logs, llm_factory=self._factory)
