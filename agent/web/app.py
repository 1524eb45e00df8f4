"""``trpg serve``: a table in the browser for any scenario of any registered system (127.0.0.1 only).

One page per table: the story the human seat saw as a chat log (the presentation layer of ``engine.core.story``, the
same items ``trpg replay --format story`` lays out), the system's panels of that seat's view in a side panel (its
sheet, its private information: hand, fragments), and the pending decision as buttons (one choice), check boxes
(several) or a form (a payload: free text where the rules ask for it). Updates arrive by server-sent events
(htmx and its SSE extension, vendored in ``static/``: no network at run time).

Seats are those of ``trpg play`` (``first_pc=human`` by default; any seat scripted, random, LLM or human); the
session is logged as it happens to the same JSONL file ``trpg play`` writes, so a table is saved at every step:
stopping the server loses nothing, and the index page (or ``trpg resume LOG``) carries the session on.

The engine decides who sees what: this module renders only ``Session.observation(actor)``, ``Session.transcript``
and the pending ``Decision`` of the human seat it serves; it filters nothing itself. The option the scripted policy
would take (it reads only that seat's view) is marked as a suggestion (``data-suggested``), a help for the player
and what the browser tests click.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from engine.core import IllegalAnswer, Session, load_scenario
from engine.core.decision import Decision
from engine.core.panels import Panel
from engine.core.registry import systems
from engine.core.replay import resume
from engine.core.story import StoryItem, Storyteller, names_for, plain_titles
from engine.core.visibility import GM
from engine.core.standing import StandingError
from engine.resources import resource_dir

from ..present.words import LANGS, no_field, web_words
from ..table import AgentFactory, SeatSpec, Table, default_agent_factory

__all__ = ["make_app", "WebTable", "scenario_choices", "WORDS"]

HERE = Path(__file__).resolve().parent
MARKS = {"dice": "🎲", "ruling": "⚖", "info": "▶", "clue": "🔑", "change": "・", "reveal": "▶"}

#: every word of the interface, by language: the shared catalogue (agent/present/words.py, ``web_*``)
WORDS: dict[str, dict[str, str]] = {lang: web_words(lang) for lang in LANGS}


def scenario_choices() -> list[tuple[str, str, str]]:
    """(path, system name, title) of every scenario under ``scenarios/<system>/`` of every registered system, the
    samples first."""
    out: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    root = resource_dir("scenarios")
    for info in systems():
        paths = [*info.sample_scenarios, *sorted((root / info.id).glob("*.yaml"))]
        for p in paths:
            key = str(Path(p).resolve())
            if key in seen or not Path(p).exists():
                continue
            seen.add(key)
            try:
                title = str(getattr(load_scenario(p).model, "title", "") or Path(p).stem)
            except Exception:  # a broken file is listed by name; starting it shows the error
                title = Path(p).stem
            out.append((str(p), info.name, title))
    return out


class WebTable:
    """One session at one browser table: the ``Table`` of ``trpg play`` (the same seats, agents, illegal-answer
    policy), advanced in a worker thread until a human seat is asked; the human's answer comes from the page."""

    def __init__(self, tid: str, session: Session, seats: SeatSpec, factory: AgentFactory, log: Path, lang: str):
        self.id = tid
        self.session = session
        self.log = log
        self.lang = lang
        self.table = Table(session, seats, factory)
        self.table.declare_standing()  # the seats' standing answers, before the first answer (a resumed log has its own)
        self.lock = threading.RLock()
        self.version = 0
        self.busy = False
        self.failure = ""
        #: actor → the names its observations have shown so far (``story``)
        self.names: dict[str, dict[str, str]] = {}
        humans = [a for a in session.game.actors() if self.table.policy_for(a) == "human"]
        self.viewer = humans[0] if humans else GM

    # -- the engine side -------------------------------------------------------------------------------------
    def is_human(self, actor: str) -> bool:
        return self.table.policy_for(actor) == "human"

    def human_pending(self) -> Decision | None:
        d = self.session.pending
        return d if d is not None and self.is_human(d.actor) else None

    def kick(self) -> None:
        """Let the other seats play until a human seat is asked or the session ends (in a worker thread)."""
        with self.lock:
            if self.busy or self.failure:
                return
            self.busy = True
        threading.Thread(target=self._advance, name=f"table-{self.id}", daemon=True).start()

    def _advance(self) -> None:
        try:
            while True:
                with self.lock:
                    d = self.session.pending
                    if d is None or self.is_human(d.actor):
                        break
                    self.table.step()
                    self.version += 1
        except Exception as e:  # shown on the page; the log keeps everything up to here (trpg resume)
            self.failure = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        finally:
            with self.lock:
                self.busy = False
                self.version += 1
                if self.session.is_over:
                    self.session.close()

    def answer(self, seq: int, raw: Any) -> str | None:
        """The human's answer to decision ``seq``: None when taken, else the refusal to show (state unchanged)."""
        with self.lock:
            d = self.human_pending()
            if d is None or d.seq != seq:
                return WORDS[self.lang]["stale"]
            try:
                self.session.answer(raw, policy="human", seq=seq)
            except IllegalAnswer as e:
                return str(e)
            self.version += 1
            if d.actor != self.viewer and self.is_human(d.actor):
                self.viewer = d.actor
        self.kick()
        return None

    # -- what the page shows ---------------------------------------------------------------------------------
    def seat(self) -> str:
        d = self.human_pending()
        return d.actor if d is not None else self.viewer

    def story(self, actor: str) -> list[StoryItem]:
        """The story ``actor`` was told, its characters named as the seat came to know them (a name learned once
        stays: an enemy gone from the table is still named in the lines about it)."""
        return Storyteller(self.session.system, self.lang, self.known_names(actor)).items(self.session.transcript(actor))

    def known_names(self, actor: str) -> dict[str, str]:
        known = self.names.setdefault(actor, {})
        known.update(names_for(self.session.system, self.session.observation(actor)))
        return dict(known)

    def panels(self, actor: str) -> list[Panel]:
        """The seat's sheet as the terminal shows it before each decision (the system's ``sheet`` hook, else its
        compact panels): one's own character, private information (hand, fragments) and the table at a glance."""
        teller = Storyteller(self.session.system, self.lang, self.known_names(actor))
        return plain_titles(teller.sheet(self.session.observation(actor)))

    def standing_rows(self, actor: str) -> list[dict[str, Any]]:
        """The seat's reaction windows with their standing answers (the side panel's form)."""
        if self.session.is_over or not self.is_human(actor):
            return []
        from engine.core.standing import standing_menu

        table = self.session.system.decision_table
        mine = self.session.standing.get(actor, {})
        return [{"kind": spec.kind, "title": spec.title, "now": mine.get(spec.kind) or "",
                 "answers": [(sa.id, sa.label) for sa in vocab]}
                for spec, vocab in standing_menu(table, self.session.actor_role(actor))]

    def set_standing(self, actor: str, wanted: Mapping[str, str]) -> str | None:
        """Declare the standing answers the form changed (kind → id, "" to be asked); None, or the refusal."""
        with self.lock:
            if self.session.is_over or not self.is_human(actor):
                return WORDS[self.lang]["stale"]
            now = self.session.standing.get(actor, {})
            changed = {k: (v or None) for k, v in wanted.items() if (v or None) != now.get(k)}
            try:
                if changed:
                    self.session.declare_standing({actor: changed})
            except StandingError as e:
                return str(e)
            self.version += 1
        return None

    def suggestion(self, d: Decision) -> Any:
        """What the scripted policy would answer from this seat's view (never another seat's)."""
        from ..scripted import ScriptedAgent

        try:
            return ScriptedAgent().act(self.session.view(d))
        except Exception:
            return None


# -- rendering -------------------------------------------------------------------------------------------------
ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"), autoescape=True, trim_blocks=True,
                         lstrip_blocks=True)


def _fields(d: Decision, suggested: Any) -> list[dict[str, Any]]:
    """The form fields of a payload decision: one per top-level field of its model, prefilled with the suggested
    payload (or the decision's first sample); text and numbers as inputs, anything larger as JSON."""
    model = d.payload_model
    if model is None:
        return []
    pre: Mapping[str, Any] = {}
    if isinstance(suggested, Mapping) and isinstance(suggested.get("payload"), Mapping):
        pre = suggested["payload"]
    elif d.samples:
        s0 = d.samples[0]
        pre = s0.get("payload", s0) if isinstance(s0, Mapping) else {}
    out = []
    schema = model.model_json_schema()
    for name, prop in (schema.get("properties") or {}).items():
        typ = prop.get("type")
        value = pre.get(name, prop.get("default", ""))
        if typ in ("string", "integer", "number") and not isinstance(value, (list, dict)):
            out.append({"name": name, "label": prop.get("description") or prop.get("title") or name,
                        "kind": "number" if typ in ("integer", "number") else "text", "value": value})
        else:
            out.append({"name": name, "label": prop.get("description") or prop.get("title") or name, "kind": "json",
                        "value": json.dumps(value, ensure_ascii=False)})
    return out


def decision_context(t: WebTable) -> dict[str, Any]:
    w = WORDS[t.lang]
    d = t.human_pending()
    ctx: dict[str, Any] = {"w": w, "t": t, "d": d, "over": t.session.is_over, "failure": t.failure}
    if d is None:
        if t.session.is_over:
            ctx["ending"] = True
        return ctx
    teller = Storyteller(t.session.system, t.lang, t.known_names(d.actor))
    sug = t.suggestion(d)
    chosen: set[str] = set()
    if isinstance(sug, str):
        chosen = {sug}
    elif isinstance(sug, Mapping):
        if sug.get("choice") is not None:
            chosen = {str(sug["choice"])}
        elif sug.get("choices") is not None:
            chosen = {str(x) for x in sug["choices"]}
    ctx.update(
        prompt=no_field(d.prompt),
        dtitle=w["your_turn"].format(name=teller.name(d.actor)),
        lines=teller.decision_lines(d),
        options=[{"id": o.id, "label": no_field(o.label), "suggested": o.id in chosen} for o in (d.options or [])],
        many=d.pick is not None,
        pick=w["pick"].format(lo=d.pick[0], hi=d.pick[1]) if d.pick is not None else "",
        fields=_fields(d, sug),
        notes=dict(d.notes or {}),
        speech=bool(getattr(d, "speech", False)),
    )
    return ctx


def render(name: str, **ctx: Any) -> str:
    return ENV.get_template(name).render(marks=MARKS, **ctx)


def _sse(event: str, html: str) -> str:
    return f"event: {event}\n" + "".join(f"data: {line}\n" for line in html.splitlines() or [""]) + "\n"


def _answer_from_form(d: Decision, form: Mapping[str, Any], many: list[str]) -> dict[str, Any]:
    raw: dict[str, Any] = {}
    if d.payload_model is not None:
        payload: dict[str, Any] = {}
        props = d.payload_model.model_json_schema().get("properties") or {}
        for name, prop in props.items():
            v = form.get(f"f.{name}")
            if v is None:
                continue
            typ = prop.get("type")
            if typ in ("integer", "number"):
                try:
                    payload[name] = int(v) if typ == "integer" else float(v)
                except ValueError:
                    payload[name] = v  # the engine refuses it with the field's message
            elif typ == "string":
                payload[name] = v
            else:
                try:
                    payload[name] = json.loads(v) if str(v).strip() else None
                except json.JSONDecodeError:
                    payload[name] = v
        raw["payload"] = {k: v for k, v in payload.items() if v is not None}
    elif d.pick is not None:
        raw["choices"] = many
    else:
        raw["choice"] = form.get("choice")
    for key in ("note", "text"):
        v = str(form.get(key) or "").strip()
        if v:
            raw[key] = v
    return raw


# -- the app ---------------------------------------------------------------------------------------------------
def make_app(logs: Path, *, lang: str = "ja", llm_factory: Any = None) -> Starlette:
    """The Starlette app of ``trpg serve``: tables logged under ``logs``; ``llm_factory(seats) -> (seats, llm agent
    factory)`` seats language models the way ``trpg play`` does (None: LLM seats are refused with the reason)."""
    logs.mkdir(parents=True, exist_ok=True)
    tables: dict[str, WebTable] = {}
    counter = itertools.count(1)

    def words() -> dict[str, str]:
        return WORDS.get(lang, WORDS["ja"])

    def model_seats(seats: SeatSpec) -> tuple[SeatSpec, Any]:
        """The seats with each LLM seat named by its model (as the log's header records it), and their agents."""
        if llm_factory is None:
            return seats, None
        return llm_factory(seats)

    def open_table(session: Session, seats: SeatSpec, agents: Any, log: Path, resumed: bool = False) -> WebTable:
        factory = default_agent_factory(session.seed, None, agents)
        tid = str(next(counter))
        t = WebTable(tid, session, seats, factory, log, lang)
        if resumed:
            t.table.mark_seen()
        tables[tid] = t
        t.kick()
        return t

    async def index(request: Request) -> Response:
        saved = []
        for p in sorted(logs.glob("*.jsonl"), key=lambda p: p.stat().st_mtime, reverse=True):
            lines = [x for x in p.read_text(encoding="utf-8", errors="replace").splitlines() if x.strip()]
            saved.append({"name": p.name, "over": bool(lines) and lines[-1].startswith('{"type":"end"')})
        return HTMLResponse(render("index.html", w=words(), lang=lang, scenarios=scenario_choices(), saved=saved,
                                   error=request.query_params.get("error", "")))

    async def new_table(request: Request) -> Response:
        form = await request.form()
        try:
            scenario = load_scenario(str(form.get("scenario")))
            seed_text = str(form.get("seed") or "").strip()
            import secrets

            seed = int(seed_text) if seed_text else secrets.randbelow(1_000_000)
            human = str(form.get("human") or "first_pc").strip() or "first_pc"
            others = [x.strip() for x in str(form.get("others") or "all=scripted").replace("、", ",").split(",") if x.strip()]
            seats, agents = model_seats(SeatSpec.parse([*others, f"{human}=human"]))
            log = logs / f"{scenario.id}-{seed}.jsonl"
            k = 1
            while log.exists():
                k += 1
                log = logs / f"{scenario.id}-{seed}-{k}.jsonl"
            session = Session(scenario, seed, log_path=log, seats=seats.to_header())
        except Exception as e:  # shown on the index page in one paragraph
            return RedirectResponse(f"/?error={_q(str(e))}", status_code=303)
        t = open_table(session, seats, agents, log)
        return RedirectResponse(f"/t/{t.id}", status_code=303)

    async def resume_table(request: Request) -> Response:
        form = await request.form()
        name = Path(str(form.get("log") or "")).name
        path = logs / name
        for t in tables.values():
            if t.log.resolve() == path.resolve() and not t.session.is_over:
                return RedirectResponse(f"/t/{t.id}", status_code=303)
        try:
            session = resume(str(path))
        except Exception as e:
            return RedirectResponse(f"/?error={_q(str(e))}", status_code=303)
        try:
            seats, agents = model_seats(SeatSpec.from_header(session.seats))
        except Exception as e:
            return RedirectResponse(f"/?error={_q(str(e))}", status_code=303)
        t = open_table(session, seats, agents, path, resumed=True)
        return RedirectResponse(f"/t/{t.id}", status_code=303)

    async def story_page(request: Request) -> Response:
        from engine.core.events import read_log
        from engine.core.story_log import story_of_log

        path = logs / Path(request.path_params["name"]).name
        events, _ = read_log(str(path))
        return HTMLResponse(story_of_log(str(path), events, None, "html", lang))

    def table_of(request: Request) -> WebTable:
        t = tables.get(request.path_params["tid"])
        if t is None:
            raise KeyError(request.path_params["tid"])
        return t

    async def table_page(request: Request) -> Response:
        try:
            t = table_of(request)
        except KeyError:
            return RedirectResponse("/", status_code=303)
        with t.lock:
            actor = t.seat()
            items = t.story(actor)
            html = render("table.html", w=words(), lang=lang, t=t, items=items, panels=t.panels(actor),
                          actor=actor, rows=t.standing_rows(actor), saved=False, error="",
                          title=str(getattr(t.session.scenario.model, "title", "") or t.session.scenario.id),
                          **{k: v for k, v in decision_context(t).items() if k not in ("w", "t")})
        return HTMLResponse(html)

    async def answer(request: Request) -> Response:
        try:
            t = table_of(request)
        except KeyError:
            return HTMLResponse(words()["stale"])
        form = await request.form()
        try:
            seq = int(str(form.get("seq")))
        except ValueError:
            return HTMLResponse(words()["stale"])
        with t.lock:
            d = t.human_pending()
            raw = _answer_from_form(d, form, [str(x) for x in form.getlist("choices")]) if d is not None else {}
        problem = t.answer(seq, raw)
        return HTMLResponse(render("_error.html", error=problem or ""))

    async def standing(request: Request) -> Response:
        try:
            t = table_of(request)
        except KeyError:
            return HTMLResponse(words()["stale"])
        form = await request.form()
        actor = str(form.get("actor", ""))
        wanted = {k[2:]: str(v) for k, v in form.items() if k.startswith("s.")}
        problem = t.set_standing(actor, wanted)
        return HTMLResponse(render("_standing.html", w=words(), t=t, actor=actor, rows=t.standing_rows(actor),
                                   saved=problem is None, error=problem or ""))

    async def events(request: Request) -> Response:
        try:
            t = table_of(request)
        except KeyError:
            return Response(status_code=404)
        sent = int(request.query_params.get("from", "0") or 0)

        async def stream() -> Any:
            nonlocal sent
            seen = -1
            shown = {"decision": "", "sheet": ""}  # what this page has: a part is sent again only when it changed
            while not await request.is_disconnected():
                if t.version != seen:
                    with t.lock:
                        seen = t.version
                        actor = t.seat()
                        items = t.story(actor)
                        new = items[sent:]
                        sent = len(items)
                        dec = render("_decision.html", **decision_context(t))
                        side = render("_panels.html", w=words(), panels=t.panels(actor))
                    if new:
                        yield _sse("story", render("_items.html", items=new))
                    for part, html in (("decision", dec), ("sheet", side)):
                        if html != shown[part]:
                            shown[part] = html
                            yield _sse(part, html)
                await asyncio.sleep(0.02)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})

    routes = [
        Route("/", index),
        Route("/tables", new_table, methods=["POST"]),
        Route("/resume", resume_table, methods=["POST"]),
        Route("/story/{name}", story_page),
        Route("/t/{tid}", table_page),
        Route("/t/{tid}/answer", answer, methods=["POST"]),
        Route("/t/{tid}/standing", standing, methods=["POST"]),
        Route("/t/{tid}/events", events),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.tables = tables
    return app


def _q(text: str) -> str:
    from urllib.parse import quote

    return quote(text.splitlines()[0][:500] if text else "")
