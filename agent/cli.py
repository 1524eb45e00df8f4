"""``trpg``: play, resume, replay and check sessions from the terminal.

Every error is one paragraph on stderr and exit code 2, never a traceback (set ``TRPG_DEBUG=1`` to see one);
Ctrl-C exits with 130 and the log kept, ready for ``trpg resume``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import re
import secrets
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import yaml
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable
from rich.text import Text

from engine.core.events import (
    CheckEvent,
    CheckRoll,
    EndEvent,
    InfoEvent,
    NarrationEvent,
    read_log,
)
from engine.core.machine import diagram
from engine.core.registry import get_system, systems
from engine.core.replay import render_transcript, resume, verify
from engine.core.scenario import format_validation_error, load_scenario, scenario_json_schema
from engine.core.session import Session
from engine.core.story import Storyteller
from engine.core.visibility import seen_by

from .base import Agent
from .human import HumanAgent, QuitAndSave
from .present.terminal import render_item
from .present.words import LANGS, interface_words
from .table import ROLE_WORDS, AgentFactory, SeatSpec, Table, default_agent_factory, is_llm_policy

if TYPE_CHECKING:
    from .llm import LLMAgent

__all__ = ["main", "CLIError"]

EXIT_FAILED = 1  # checks ran and some failed (examples)
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """An error the user can fix; printed as one paragraph."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CLIError(f"{self.prog}: {message} (see {self.prog} --help)")


#: ``trpg replay --format``: the story (Markdown, or HTML), the audit transcript (md and html: its names before)
REPLAY_FORMATS = ("story", "story-html", "audit", "audit-html", "md", "html")


#: ``agent.llm.REACTIONS`` (not imported here: it pulls in the openai client)
_REACTIONS = ("standing", "scripted", "llm")

def _paragraph(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True, emoji=False)


def _write_or_print(text: str, output: str | None) -> None:
    if output:
        p = Path(output)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        print(f"wrote {p}")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


# -- subcommands -------------------------------------------------------------------------------------------------
def cmd_systems(args: argparse.Namespace) -> int:
    t = RichTable(show_header=True, header_style="bold")
    for col in ("id", "name", "version", "capabilities"):
        t.add_column(col)
    for s in systems():
        t.add_row(escape(s.id), escape(s.name), escape(s.version), escape(", ".join(sorted(s.capabilities))))
    _out().print(t)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from engine.core.scenario import ScenarioError

    bad = 0
    for path in args.scenarios:
        try:
            sc = load_scenario(path)
        except ScenarioError as e:
            bad += 1
            print(_paragraph(str(e)), file=sys.stderr)
            continue
        print(f"ok: {path} ({sc.system.id} {sc.id} v{getattr(sc.model, 'version', '1')})")
    return EXIT_ERROR if bad else 0


def cmd_schema(args: argparse.Namespace) -> int:
    schema = scenario_json_schema(args.system)
    _write_or_print(json.dumps(schema, ensure_ascii=False, indent=2) + "\n", args.output)
    return 0


def cmd_diagram(args: argparse.Namespace) -> int:
    info = get_system(args.system)
    if not info.machines:
        raise CLIError(f"system {info.id} declares no state machines")
    for spec in info.machines:
        text = diagram(spec)
        if args.output:
            d = Path(args.output)
            d.mkdir(parents=True, exist_ok=True)
            p = d / f"{info.id}_{spec.name}.mmd"
            p.write_text(text, encoding="utf-8")
            print(f"wrote {p}")
        else:
            sys.stdout.write(text + "\n")
    return 0


def _parse_config(items: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"bad --config {item!r}: write KEY=VALUE, e.g. --config heal_cap=none")
        out[key.strip()] = _config_value(value.strip())
    return out


def _config_value(text: str) -> Any:
    """``true``/``false``, ``null``, numbers and lists/maps as in YAML; anything else stays a string (YAML 1.1 would
    turn ``no`` or ``on`` into booleans)."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~"):
        return None
    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return value if isinstance(value, (int, float, list, dict)) and not isinstance(value, bool) else text


#: the words of a check roll's result (``CheckRoll.result``) on the terminal
_RESULT_JA = {"critical": "クリティカル", "fumble": "ファンブル", "abandoned": "放棄", "auto_success": "自動成功",
              "auto_failure": "自動失敗"}


def _roll_text(r: CheckRoll) -> str:
    bits = [f"{r.pool}D [{' '.join(map(str, r.faces))}]" + (f" → 達成値 {r.ach}" if r.ach is not None else "")]
    if r.target is not None:
        bits.append(f"/ 目標 {r.target}")
    if r.result in _RESULT_JA:
        bits.append(_RESULT_JA[r.result])
    if r.success is not None:
        bits.append("成功" if r.success else "失敗")
    return " ".join(bits)


def check_lines(e: CheckEvent, name: Callable[[str], str] = str) -> list[str]:
    """One line per roll of a check event, for the terminal (label, roller, pool, faces, achievement, result),
    read from the check's typed fields. ``name`` turns a roller's id into its display name; the only roller's name
    is not repeated when the label already shows it (with several rollers every line names its own)."""
    label = e.label or e.check

    def who(r: CheckRoll, alone: bool) -> str:
        n = name(r.who)
        return "" if not n or (alone and n in label) else f"{n} "

    if e.rolls:
        return [f"{label}: {who(r, len(e.rolls) == 1)}{_roll_text(r)}" for r in e.rolls]
    return [label + (f": {e.result}" if e.result and e.result not in label else "")]


def _names(session: Session) -> Callable[[str], str]:
    """Character id → display name, from the session's snapshot (read again when an unknown id shows up)."""
    known: dict[str, str] = {}

    def name(cid: str) -> str:
        if cid and cid not in known:
            chars = (session.snapshot().get("table") or {}).get("chars") or {}
            known.update({k: str(v["name"]) for k, v in chars.items() if isinstance(v, Mapping) and v.get("name")})
            known.setdefault(cid, cid)
        return known.get(cid, cid)

    return name


def _printer(console: Console, session: Session | None = None,
             viewers: Callable[[], Sequence[str]] | None = None, lang: str = "ja") -> Callable[[Sequence[BaseModel]], None]:
    """The live story as the GM sees it (``viewers``: the actors whose view to show; none → the GM's full view),
    told by the presentation layer (``engine.core.story``). What each seat may see is the engine's call
    (``engine.core.visibility.seen_by``). Human seats tell their own story before each of their decisions
    (``HumanAgent``), so this is for tables where nobody human sits."""
    teller = Storyteller(session.system if session is not None else None, lang)

    def seen(e: BaseModel) -> BaseModel | None:
        who = list(viewers()) if viewers is not None else []
        for actor in who or ["gm"]:
            x = seen_by(e, actor)
            if x is not None:
                return x
        return None

    def show(events: Sequence[BaseModel]) -> None:
        if session is not None and session.pending is not None:
            teller.learn(session.pending.observation if session.pending.actor == "gm"
                         else session.observation("gm"))
        for raw in events:
            e = seen(raw)
            if e is None:
                continue
            if isinstance(e, InfoEvent) and e.topic == "fallback":  # the table's note, not part of the story
                console.print(Text(f"({e.text})", style="dim"))
                continue
            for it in teller.items([e]):
                console.print(render_item(it, lang))

    return show


def _watch(table: Table, console: Console, lang: str = "ja") -> None:
    """Show the table's story when nobody human sits at it (the GM's view); human seats tell their own."""
    session = table.session
    if any(table.policy_for(a) == "human" for a in session.game.actors()):
        return
    table.observer = _printer(console, session, None, lang)


def _factory(seed: int, console: Console, llm: _LLMSeats | None = None, *, lang: str = "ja", resumed: bool = False,
             humans: list[HumanAgent] | None = None) -> AgentFactory:
    def human() -> Agent:
        agent = HumanAgent(console, lang=lang, resumed=resumed)
        if humans is not None:
            humans.append(agent)
        return agent

    return default_agent_factory(seed, human, llm.agent if llm is not None else None)


#: with --llm local, prompts are counted with the model's own tokenizer (``local_llm.token_counter``): compact a
#: prompt above this many tokens (the 4,096-token window keeps room for the reply, and a CPU answers in seconds) and
#: give the recent transcript at most LOCAL_BUDGET of them
LOCAL_MAX_PROMPT = 2600
LOCAL_BUDGET = 500
#: the recent transcript's budget otherwise (tokens estimated by ``agent.prompting.approx_tokens``)
DEFAULT_BUDGET = 1000
LOCAL_MAX_TOKENS = 300
LOCAL_TIMEOUT = 180.0
#: what the local server's window (agent.local_llm.CONTEXT_TOKENS) leaves a prompt: the reply and the chat
#: template's own tokens (about 30) come out of it
LOCAL_WINDOW = 4096 - LOCAL_MAX_TOKENS - 96


class _LLMSeats:
    """LLM seats for one session: model settings from the flags (and a local server for ``--llm local``), one
    ``LLMAgent`` per ``llm:<model>`` policy, and their numbers at the end."""

    def __init__(self, args: argparse.Namespace, scenario_language: str, stack: contextlib.ExitStack):
        self.args = args
        self.stack = stack
        self.local = getattr(args, "llm", None) == "local"
        lang = getattr(args, "llm_language", None)
        self.language = lang or ("en" if self.local else ("ja" if scenario_language == "ja" else "en"))
        self.settings: Any = None
        self.agents: dict[str, LLMAgent] = {}
        self._overrides: dict[str, Any] = {}
        self.gguf: Path | None = None  # --llm local: the served model file (its tokenizer counts prompt tokens)
        self._count: Any = None

    def start(self) -> None:
        """Resolve the settings (starting the local server first if asked)."""
        from .models.config import resolve_settings

        args = self.args
        overrides: dict[str, Any] = {"base_url": args.llm_base_url, "model": args.llm_model, "mode": args.llm_mode}
        if self.local:
            from .local_llm import DEFAULT_CACHE_MB, DEFAULT_MODE, LocalLLMError, local_server

            cache = getattr(args, "llm_cache_mb", None)
            try:
                server = self.stack.enter_context(local_server(cache_mb=DEFAULT_CACHE_MB if cache is None else cache))
            except LocalLLMError as e:
                raise CLIError(str(e)) from None
            # the reply is one small JSON object: a smaller reservation leaves the 4,096-token window to the prompt
            # a CPU model can take minutes on a long prompt when the machine is busy; a timed-out request keeps the
            # server busy and the retry queues behind it, so give one attempt time rather than retry early
            overrides.update(base_url=server.base_url, model=server.model, mode=args.llm_mode or DEFAULT_MODE,
                             max_tokens=LOCAL_MAX_TOKENS, timeout=LOCAL_TIMEOUT)
            print(f"local LLM {server.model} at {server.base_url}", file=sys.stderr)
            self.gguf = server.gguf
        self._overrides = overrides
        self.settings = resolve_settings(overrides, Path(args.llm_config) if args.llm_config else None)

    def rewrite(self, seats: SeatSpec) -> SeatSpec:
        """``llm`` becomes ``llm:<model>`` so that the log header names the model."""
        return SeatSpec(tuple((who, f"llm:{self.settings.model}" if pol == "llm" else pol) for who, pol in seats.entries))

    def agent(self, policy: str) -> Agent:
        from .llm import LLMAgent
        from .models.config import make_model, resolve_settings

        model_name = policy.split(":", 1)[1] if ":" in policy else self.settings.model
        settings = self.settings
        if model_name != settings.model:
            settings = resolve_settings({**self._overrides, "model": model_name},
                                        Path(self.args.llm_config) if self.args.llm_config else None)
        model = make_model(settings)
        self.stack.callback(_close_model, model)
        endpoint = getattr(model, "endpoint", None)
        base_url = endpoint if isinstance(endpoint, str) else settings.base_url
        agent = LLMAgent(model, language=self.language, mode=settings.mode, name=f"llm:{model_name}",
                         temperature=settings.temperature, max_tokens=settings.max_tokens, base_url=base_url,
                         budget_tokens=self.args.llm_budget or (LOCAL_BUDGET if self.local else DEFAULT_BUDGET),
                         max_prompt_tokens=self.args.llm_max_prompt or (LOCAL_MAX_PROMPT if self.local else None),
                         window_tokens=LOCAL_WINDOW if self.local else None,
                         count_tokens=self._local_count() if self.local else None,
                         reactions=getattr(self.args, "llm_reactions", None) or "standing",
                         full_observation=bool(getattr(self.args, "llm_full_observation", False)))
        self.agents[policy] = agent
        return agent

    def _local_count(self) -> Any:
        """The served model's tokenizer; if it cannot be read, an estimate calibrated on SmolLM2 (said once)."""
        if self._count is None:
            from .local_llm import smollm2_estimate, token_counter

            try:
                self._count = token_counter(self.gguf)
            except Exception as e:  # llama-cpp-python missing, or a GGUF its tokenizer cannot read
                print(f"prompt tokens are estimated (the model's tokenizer is not readable: {e})", file=sys.stderr)
                self._count = smollm2_estimate
        return self._count

    def summary_lines(self) -> list[str]:
        from .llm import format_summary

        return [format_summary(a.summary()) for a in self.agents.values() if a.decisions]


def _close_model(model: Any) -> None:
    close = getattr(model, "close", None)
    if callable(close):
        with contextlib.suppress(Exception):
            close()


def _llm_seats(args: argparse.Namespace, seats: SeatSpec, language: str, stack: contextlib.ExitStack) -> _LLMSeats | None:
    if getattr(args, "llm", None) == "local" and getattr(args, "llm_base_url", None):
        raise CLIError("--llm local and --llm-base-url exclude each other: the local server has its own URL")
    if not any(is_llm_policy(p) for _, p in seats.entries):
        return None
    llm = _LLMSeats(args, language, stack)
    llm.start()
    return llm


def _interface_language(language: str) -> str:
    """The terminal's language for a scenario's: one the interface speaks, else Japanese."""
    return language if language in LANGS else "ja"


def _scenario_language(scenario: Any) -> str:
    return str(getattr(getattr(scenario, "model", None), "language", "ja") or "ja")


def _summary(console: Console, session: Session, table: Table | None, log: Path | str | None,
             llm: _LLMSeats | None = None, lang: str = "ja", told: bool = False) -> None:
    """The counts of the session; the outcome itself is the story's ending (``told``: already shown)."""
    w = interface_words(lang)
    if not told:
        teller = Storyteller(session.system, lang)
        teller.learn(session.observation("gm"))
        end = [e for e in session.events if isinstance(e, EndEvent)][-1:]
        for it in teller.items(end):
            console.print(render_item(it, lang))
    console.rule(Text(w["end"], style="bold"))
    bits = [w["summary"].format(decisions=session.decisions, rolls=len(session.dice.rolls))]
    if table is not None and table.fallbacks:
        bits.append(w["fallbacks"].format(n=table.fallbacks))
    if log:
        bits.append(w["log_file"].format(path=log))
    console.print(Text("、".join(bits) if lang == "ja" else "; ".join(bits), style="dim"))
    for line in llm.summary_lines() if llm is not None else []:
        console.print(escape(line), style="dim")


def _run_table(session: Session, table: Table, log: Path | str, quiet: bool, console: Console,
               llm: _LLMSeats | None = None, lang: str = "ja", humans: Sequence[HumanAgent] = ()) -> int:
    w = interface_words(lang)
    try:
        table.run()
    except QuitAndSave:
        session.close()
        print(w["saved"].format(log=log))
        return 0
    except KeyboardInterrupt:
        session.close()
        print(w["interrupted"].format(log=log), file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException:
        session.close()
        raise
    campaign_file = session.options.get("campaign_file")
    if campaign_file and session.outcome and "campaign" in session.outcome:
        Path(campaign_file).write_text(yaml.safe_dump(session.outcome["campaign"], allow_unicode=True, sort_keys=False),
                                       encoding="utf-8")
        if not quiet:
            console.print(Text(w["campaign_saved"].format(path=campaign_file,
                                                          n=session.outcome["campaign"].get("sessions_played"))))
    if not quiet:
        for h in humans:  # the story since each human seat's last decision: the ending
            h.finish(session.transcript)
        _summary(console, session, table, log, llm, lang, told=bool(humans) or table.observer is not None)
    elif llm is not None:  # the LLM accounting (fallbacks above all) is reported even when quiet
        for line in llm.summary_lines():
            print(line, file=sys.stderr)
    return 0


def _load_campaign(path: Path) -> dict[str, Any] | None:
    """A campaign file carries what one session hands the next (written at the end of a session with --campaign)."""
    if not path.exists():
        return None
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise CLIError(f"{path}: cannot read the campaign file ({str(e).splitlines()[0]})") from None
    if not isinstance(data, dict) or not isinstance(data.get("pcs", {}), dict):
        raise CLIError(f"{path}: not a campaign file (a mapping with system, pcs and relations is expected)")
    return data


def cmd_play(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        return _play(args, stack)


def _play(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    scenario = load_scenario(args.scenario)
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    # the seats given override only the actors they name: the first PC stays human unless a seat names it
    seats = SeatSpec.parse([f"{who}={pol}" for who, pol in SeatSpec.default().entries] + list(args.seat or []))
    config = _parse_config(args.config or [])
    options: dict[str, Any] = {"create_pcs": True} if args.create else {}
    if getattr(args, "campaign", None):
        camp = _load_campaign(Path(args.campaign))
        if camp is not None:
            if camp.get("system") not in (None, scenario.system.id):
                raise CLIError(f"{args.campaign}: a {camp.get('system')} campaign cannot continue in a {scenario.system.id} scenario")
            options["campaign"] = camp
        options["campaign_file"] = str(args.campaign)
    log = Path(args.log) if args.log else Path("logs") / f"{scenario.id}-{seed}.jsonl"
    if log.exists() and not args.overwrite:
        raise CLIError(
            f"the log {log} already exists; resume it with `trpg resume {log}`, choose another file with --log, "
            "or pass --overwrite"
        )
    console = _out()
    llm = _llm_seats(args, seats, _scenario_language(scenario), stack)
    if llm is not None:
        seats = llm.rewrite(seats)
    try:
        session = Session(scenario, seed, config=config, log_path=log, seats=seats.to_header(), options=options)
    except ValidationError as e:
        problems = "; ".join(f"`{f}`: {p}" if f else p for f, p in format_validation_error(e))
        raise CLIError(f"{scenario.path}: invalid configuration: {problems}") from None
    actors = set(session.game.actors())
    unknown = [who for who, _ in seats.entries if who not in ROLE_WORDS and who not in actors]
    if unknown and not args.create:
        session.close()
        log.unlink(missing_ok=True)
        raise CLIError(
            f"--seat names {', '.join(unknown)}, who is not at this table; roles: {', '.join(ROLE_WORDS)}; "
            f"characters: {', '.join(sorted(actors))}"
        )
    lang = args.lang or _interface_language(_scenario_language(scenario))
    if not args.quiet:
        title = str(getattr(scenario.model, "title", scenario.id))
        console.print(Text(interface_words(lang)["title_line"].format(title=title, seed=seed, log=log), style="bold"))
    humans: list[HumanAgent] = []
    table = Table(session, seats, _factory(seed, console, llm, lang=lang, humans=humans))
    if not args.quiet:
        _watch(table, console, lang)
    return _run_table(session, table, log, args.quiet, console, llm, lang, humans)


def cmd_resume(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as stack:
        return _resume(args, stack)


def _logged_llm_seats(path: str) -> list[str]:
    """The LLM seats a log's header names (``role=llm:<model>``), read before anything touches the file."""
    try:
        with open(path, "rb") as f:
            head = json.loads(f.readline())
    except (OSError, ValueError):
        return []  # resume() says what is wrong with the file
    seats = head.get("seats") if isinstance(head, dict) else None
    if not isinstance(seats, dict):
        return []
    return [f"{who}={pol}" for who, pol in seats.items() if isinstance(pol, str) and is_llm_policy(pol)]


def _confirm_llm_seats(args: argparse.Namespace) -> None:
    """A log's header decides its seats, and anyone can write a header: seating a paid model the user did not name
    here is asked first (``--yes`` agrees beforehand; without a terminal to ask on, it is refused)."""
    llm = _logged_llm_seats(args.log)
    if not llm or args.yes:
        return
    what = ", ".join(llm)
    where = args.llm_base_url or ("a local server" if getattr(args, "llm", None) == "local" else
                                  os.environ.get("OPENAI_BASE_URL") or "the OpenAI API")
    if not sys.stdin.isatty():
        raise CLIError(f"{args.log} seats language models ({what}) that would be called at {where} with your key; "
                       "pass --yes to resume with them")
    answer = input(f"{args.log} seats language models ({what}); call them at {where}? [y/N] ").strip().lower()
    if answer not in ("y", "yes", "はい"):
        raise CLIError("not resumed: the log's LLM seats were not confirmed")


def _resume(args: argparse.Namespace, stack: contextlib.ExitStack) -> int:
    console = _out()
    _confirm_llm_seats(args)
    session = resume(args.log)
    lang = args.lang or _interface_language(_scenario_language(session.scenario))
    if session.is_over:
        print(f"{args.log}: the session had already ended; its last events were restored")
        if not args.quiet:
            _summary(console, session, None, args.log, lang=lang)
        return 0
    seats = SeatSpec.from_header(session.seats)
    llm = _llm_seats(args, seats, _scenario_language(session.scenario), stack)
    humans: list[HumanAgent] = []
    table = Table(session, seats, _factory(session.seed, console, llm, lang=lang, resumed=True, humans=humans))
    if not args.quiet:
        _watch(table, console, lang)
    table.mark_seen()
    if not args.quiet:
        d = session.pending
        assert d is not None
        console.print(Text(interface_words(lang)["resumed"].format(log=args.log, seq=d.seq), style="bold"))
        recap = [e for e in session.events if isinstance(e, NarrationEvent)][-6:]
        if table.observer is not None:
            table.observer(recap)
    return _run_table(session, table, args.log, args.quiet, console, llm, lang, humans)


def cmd_replay(args: argparse.Namespace) -> int:
    if args.verify or args.campaign:
        from .provenance import provenance

        summary = verify(args.log, check=provenance if args.verify else None)
        if args.verify:
            print(summary.text())
        if args.campaign:
            # the end event logs the campaign's digest only; the replayed session rebuilds it whole
            camp = (summary.outcome or {}).get("campaign")
            if not isinstance(camp, dict):
                raise CLIError(f"{args.log}: this session's outcome carries no campaign (its system keeps none)")
            Path(args.campaign).write_text(yaml.safe_dump(camp, allow_unicode=True, sort_keys=False), encoding="utf-8")
            print(f"campaign saved to {args.campaign}")
        if not args.output and not args.format:
            return 0
    events, truncated = read_log(args.log)
    fmt = args.format or "audit"
    html = args.html or fmt.endswith("html")
    if fmt.startswith("story"):
        text = _story_text(args.log, events, args.seat, "html" if html else "md", args.lang)
    else:
        text = render_transcript(events, "html" if html else "md", seat=args.seat)
    _write_or_print(text, args.output)
    if truncated or not isinstance(events[-1], EndEvent):
        print(f"note: {args.log} is unfinished; resume it with `trpg resume {args.log}`", file=sys.stderr)
    return 0


def _story_text(path: str, events: Sequence[BaseModel], seat: str | None, fmt: Literal["md", "html"],
                lang: str) -> str:
    """The story a seat saw (or the GM's whole story), from its log (``engine.core.story_log.story_of_log``)."""
    from engine.core.story_log import story_of_log

    try:
        return story_of_log(path, events, seat, fmt, lang)
    except ValueError as e:
        raise CLIError(f"--seat {seat}: {e}") from None


def _lazy(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and module.startswith(e.name):
            raise CLIError(f"{what} is not available in this version (module {module} is missing)") from None
        raise


def serve_llm_factory(args: argparse.Namespace, stack: contextlib.ExitStack) -> Callable[[SeatSpec], tuple[SeatSpec, Any]]:
    """For ``trpg serve``: a table's seats → (the seats with each LLM seat named by its model, its agent factory),
    from the same ``--llm-*`` flags as ``trpg play`` (the models live as long as ``stack``)."""
    def factory(seats: SeatSpec) -> tuple[SeatSpec, Any]:
        llm = _llm_seats(args, seats, "ja", stack)
        if llm is None:
            return seats, None
        return llm.rewrite(seats), llm.agent

    return factory


def cmd_serve(args: argparse.Namespace) -> int:
    """``trpg serve``: the browser table (agent.web, needs the ``web`` extra), bound to 127.0.0.1 only."""
    try:
        import uvicorn

        from .web.app import make_app
    except ModuleNotFoundError as e:
        raise CLIError(f"trpg serve needs the web extra ({e.name} is missing): pip install -e '.[web]'") from None
    with contextlib.ExitStack() as stack:
        app = make_app(Path(args.logs), lang=args.lang, llm_factory=serve_llm_factory(args, stack))
        url = f"http://127.0.0.1:{args.port}/"
        print(f"trpg serve: {url} (Ctrl-C to stop; tables are logged under {args.logs}/)", file=sys.stderr)
        if args.open:
            import webbrowser

            webbrowser.open(url)
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    return 0


def cmd_examples(args: argparse.Namespace) -> int:
    mod = _lazy("engine.core.examples", "the worked-examples runner")
    paths = [Path(p) for p in args.files] or [Path(p) for s in systems() for p in s.examples]
    if not paths:
        raise CLIError("no example files given and no registered system lists any")
    report = mod.run_examples(paths, args.case)
    print(report.format(args.verbose))
    return 0 if report.ok else EXIT_FAILED


def cmd_new_character(args: argparse.Namespace) -> int:
    info = get_system(args.system)
    mod = _lazy(f"engine.systems.{info.id}.creation", f"interactive character creation for {info.id}")
    make = getattr(mod, "new_character_session", None)
    if make is None:
        raise CLIError(f"engine.systems.{info.id}.creation has no new_character_session(seed); cannot create characters")
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    session: Session = make(seed=seed)
    console = _out()
    humans: list[HumanAgent] = []
    table = Table(session, SeatSpec.parse(["all=scripted", "pcs=human"]), _factory(seed, console, humans=humans))
    _watch(table, console)
    try:
        outcome = table.run()
    except QuitAndSave:
        print("character creation abandoned", file=sys.stderr)
        return 0
    for h in humans:  # the GM's last rulings on the sheet
        h.finish(session.transcript)
    sheet = outcome.get("sheet", outcome)
    text = yaml.safe_dump(sheet, allow_unicode=True, sort_keys=False)
    _write_or_print(text, args.output)
    return 0


def _batch_config(args: argparse.Namespace) -> dict[str, Any]:
    """``--config KEY=VALUE`` of a batch, checked against the scenario's system before any session runs."""
    from .batch.runner import BatchError, check_config

    config = _parse_config(args.config or [])
    try:
        return check_config(args.scenario, config)
    except BatchError as e:
        raise CLIError(str(e)) from None


def _check_batch_args(args: argparse.Namespace, *, dask: bool) -> None:
    """What ``playtest`` and ``compare`` refuse before anything runs: sizes, --scheduler without Dask, an --out that is
    a file, and Dask (when ``dask``) not installed."""
    if args.runs < 1:
        raise CLIError(f"--runs must be at least 1 (got {args.runs})")
    if args.jobs < 1:
        raise CLIError(f"--jobs must be at least 1 (got {args.jobs})")
    if args.scheduler and args.executor != "dask":
        raise CLIError("--scheduler needs --executor dask")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CLIError(f"--out {out} exists and is not a directory")
    if dask:
        try:
            importlib.import_module("dask.distributed")
        except ImportError:
            raise CLIError("--executor dask needs dask[distributed]: pip install -e '.[batch]'") from None


def cmd_playtest(args: argparse.Namespace, stack: contextlib.ExitStack | None = None) -> int:
    """Batch playtest: run a scenario many times, write report.json and report.html."""
    if stack is None:
        with contextlib.ExitStack() as st:
            return cmd_playtest(args, st)
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from .batch.runner import SEED_SCHEME, BatchError, check_llm_executor, check_seats, run_batch

    _check_batch_args(args, dask=args.executor == "dask")
    scenario = load_scenario(args.scenario)
    config = _batch_config(args)
    try:  # refused before any model server starts: humans, unknown seats, LLM seats on another executor
        spec = check_seats(args.scenario, args.seat or ["all=scripted"], config)
        check_llm_executor(spec, args.executor)
    except BatchError as e:
        raise CLIError(str(e)) from None
    try:
        importlib.import_module("matplotlib")
    except ImportError:
        raise CLIError("trpg playtest draws its plots with matplotlib: pip install -e '.[batch]'") from None
    out = Path(args.out)
    llm = _llm_seats(args, spec, _scenario_language(scenario), stack)
    note = ""
    if llm is not None:
        spec = llm.rewrite(spec)
        note = (f"LLM seats: every session ran in this process on one event loop, at most {args.jobs} at once (--jobs), "
                "one model client per seat policy")
    keep = out / "logs" if args.keep_logs else None
    console = _out()
    t0 = time.perf_counter()
    with Progress(TextColumn("[bold]playtest[/]"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                  TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                  disable=args.quiet, transient=False) as bar:
        task = bar.add_task("sessions", total=args.runs, rate="")

        def progress(done: int, total: int) -> None:
            dt = time.perf_counter() - t0
            bar.update(task, completed=done, rate=f"{done / dt:.1f} sessions/s" if done and dt > 0 else "")

        try:
            agg = run_batch(args.scenario, args.runs, [f"{w}={p}" for w, p in spec.entries], args.seed, jobs=args.jobs,
                            executor=args.executor, scheduler=args.scheduler, keep_logs_dir=keep,
                            problem_logs_dir=out / "logs", progress=progress, config=config,
                            llm=llm.agent if llm is not None else None)
        except BatchError as e:
            raise CLIError(str(e)) from None
    elapsed = time.perf_counter() - t0
    rep = agg.report()
    rep["run"] = {"runs": args.runs, "seed": args.seed, "seeds": SEED_SCHEME, "seats": [f"{w}={p}" for w, p in spec.entries],
                  "executor": args.executor, "jobs": args.jobs, "scheduler": args.scheduler or "",
                  "config": config}
    if note:
        rep["run"]["note"] = note
    from .batch.report import add_replay_commands, write_report

    add_replay_commands(rep)

    paths = write_report(rep, out)
    if not args.quiet:
        sess = rep["sessions"]
        console.print(f"[bold]{escape(str(getattr(scenario.model, 'title', scenario.id)))}[/] — {sess['runs']} sessions in "
                      f"{elapsed:.1f} s ({sess['runs'] / max(elapsed, 1e-9):.1f} sessions/s); {sess['stalled']} hit a safety cap, "
                      f"{sess['failed']} failed")
        console.print("endings: " + escape(", ".join(f"{r['label']} {r['rate']:.1%}" for r in rep["endings"])))
        for w in rep["warnings"]:
            console.print(f"[yellow]warning:[/] {escape(w)}")
        if llm is not None:
            acc = rep["llm"]
            lat = acc.get("median_latency_s")
            lat_text = f"{lat:.2f} s" if isinstance(lat, (int, float)) else "n/a (no reply)"
            console.print(escape(f"LLM: {acc.get('calls', 0)} calls, {acc.get('tokens', 0)} tokens, median latency "
                                 f"{lat_text}, {acc.get('errors', 0)} failed calls, {acc.get('reasks', 0)} re-asks, "
                                 f"{acc.get('fallbacks', 0)} fallbacks, {acc.get('illegal_per_100_decisions', 0)} "
                                 "illegal or unreadable replies per 100 LLM decisions"), style="dim")
        console.print(f"wrote {escape(str(paths['json']))} and {escape(str(paths['html']))}")
    if rep["sessions"]["failed"] == rep["sessions"]["runs"]:
        first = rep["failures"]["items"][0]
        raise CLIError(f"every session failed (seed {first['seed']}: {first['error']}); the report is in {paths['html']}")
    return 0


def cmd_compare(args: argparse.Namespace, stack: contextlib.ExitStack | None = None) -> int:
    """Compare seat policies on the same seeds: compare.json, compare.html and a table."""
    if stack is None:
        with contextlib.ExitStack() as st:
            return cmd_compare(args, st)
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from .batch.compare import CompareError, compare, parse_policies, rich_tables, write_compare
    from .batch.runner import BatchError

    try:
        policies = parse_policies(args.policy or [])
    except CompareError as e:
        raise CLIError(str(e)) from None
    # LLM policies run in this process whatever the executor (see agent.batch.compare)
    _check_batch_args(args, dask=args.executor == "dask" and not any(p.uses_llm for p in policies))
    scenario = load_scenario(args.scenario)
    config = _batch_config(args)
    out = Path(args.out)
    llm_factories: dict[str, Callable[[str], Agent]] = {}
    note = ""
    if any(p.uses_llm for p in policies):
        all_seats = SeatSpec(tuple(e for p in policies for e in SeatSpec.parse(p.seats).entries))
        seats = _llm_seats(args, all_seats, _scenario_language(scenario), stack)
        assert seats is not None
        for p in policies:
            if p.uses_llm:
                llm_factories[p.name] = seats.agent
        note = (f"LLM policies: every session ran in this process, at most {args.jobs} at once (--jobs), "
                "one model client per policy (--executor is not used)")
    console = _out()
    t0 = time.perf_counter()
    with Progress(TextColumn("[bold]compare[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=Console(stderr=True), disable=args.quiet, transient=False) as bar:
        task = bar.add_task("seeds", total=args.runs)
        try:
            result = compare(args.scenario, policies, args.runs, args.seed, jobs=args.jobs, executor=args.executor,
                             scheduler=args.scheduler, export_decisions=args.export_decisions,
                             llm=llm_factories or None, progress=lambda done, total: bar.update(task, completed=done),
                             config=config)
        except BatchError as e:
            raise CLIError(str(e)) from None
    elapsed = time.perf_counter() - t0
    result["run"] = {"runs": args.runs, "seed": args.seed, "policies": [str(p) for p in policies],
                     "executor": args.executor, "jobs": args.jobs, "config": config, "note": note}
    paths = write_compare(result, out)
    if not args.quiet:
        for t in rich_tables(result):
            console.print(t)
        for w in result["warnings"]:
            console.print(f"[yellow]warning:[/] {escape(w)}")
        if note:
            console.print(f"[dim]{escape(note)}[/]")
        console.print(f"{args.runs} seeds × {len(policies)} policies in {elapsed:.1f} s; wrote {escape(str(paths['json']))} "
                      f"and {escape(str(paths['html']))}"
                      + (f"; {result['exported_decisions']} decisions in {escape(str(args.export_decisions))}"
                         if args.export_decisions else ""))
    return 0


def cmd_fuzz(args: argparse.Namespace) -> int:
    """``trpg fuzz FUZZER``: the fuzzers of ``agent.fuzz`` (exit 1 on any failure they find)."""
    from .fuzz.cli import FuzzError, run

    try:
        return run(args)
    except FuzzError as e:
        raise CLIError(str(e)) from None


def cmd_llm_serve(args: argparse.Namespace) -> int:
    from .local_llm import DEFAULT_CACHE_MB, LocalLLMError, serve

    try:
        return serve(args.port, cache_mb=DEFAULT_CACHE_MB if args.cache_mb is None else args.cache_mb)
    except LocalLLMError as e:
        raise CLIError(str(e)) from None


# -- the parser --------------------------------------------------------------------------------------------------
#: ``agent.local_llm.DEFAULT_CACHE_MB`` as the help text says it (that module is imported only when a server starts;
#: a test keeps the two equal)
_CACHE_MB_HELP = 1024


def _cache_mb(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in MB (a whole number, 0 for no cache)")
    return n


def _llm_flags(s: argparse.ArgumentParser) -> None:
    from .models.base import OUTPUT_MODES

    g = s.add_argument_group("LLM seats (--seat ROLE=llm or ROLE=llm:<model>)")
    g.add_argument("--llm-base-url", metavar="URL", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)")
    g.add_argument("--llm-model", metavar="NAME", help="model for `llm` seats (default: TRPG_LLM_MODEL, the config file, gpt-4o-mini)")
    g.add_argument("--llm-mode", choices=OUTPUT_MODES, help="how structured output is asked for (default json_schema; "
                   "json_object_schema with --llm local)")
    g.add_argument("--llm-config", metavar="FILE", help="model settings file (.toml or .yaml)")
    g.add_argument("--llm", choices=("local",), help="local: start the demo SmolLM2 server for this session and stop it after")
    g.add_argument("--llm-language", choices=("ja", "en"), help="narration language of LLM seats (default: the scenario's; "
                   "en with --llm local)")
    g.add_argument("--llm-budget", type=int, metavar="TOKENS", help="token budget of the recent transcript in a prompt "
                   "(default 1000; counted by the model's tokenizer where known: OpenAI's models with the tokens extra, "
                   "the local model; else estimated; 500 with --llm local)")
    g.add_argument("--llm-full-observation", action="store_true", help="show LLM seats the whole observation of the "
                   "table (default: the system's lean view of it, with the seat's own sheet and the GM's part in full)")
    g.add_argument("--llm-reactions", choices=_REACTIONS, help="who answers the system's mechanical reaction windows "
                   "(reroll, concede, ...) on LLM seats: standing (default: the seat declares the system's default "
                   "standing answers, the engine resolves those windows without asking), scripted (asked, answered by "
                   "the scripted policy without a model call) or llm (the model)")
    g.add_argument("--llm-max-prompt", type=int, metavar="TOKENS", help="compact prompts larger than this (tokens, "
                   "as for --llm-budget) for small context windows (default: no limit; 2600 with --llm local)")
    g.add_argument("--llm-cache-mb", type=_cache_mb, metavar="MB", help="with --llm local: the local server's prompt "
                   f"cache (default {_CACHE_MB_HELP}: about 3.5 GB resident with four LLM seats; 256: about 1.5 GB, "
                   "a quarter slower; 0: none)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="trpg", description="Run Japanese TRPG sessions with AI, scripted and human players.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("systems", help="list the rule systems")
    s.set_defaults(func=cmd_systems)

    s = sub.add_parser("validate", help="check scenario files against their system's schema")
    s.add_argument("scenarios", nargs="+", metavar="SCENARIO")
    s.set_defaults(func=cmd_validate)

    s = sub.add_parser("schema", help="print the JSON Schema of scenario files")
    s.add_argument("--system", help="one system's schema (default: all systems)")
    s.add_argument("-o", "--output", metavar="FILE")
    s.set_defaults(func=cmd_schema)

    s = sub.add_parser("diagram", help="mermaid diagrams of a system's state machines")
    s.add_argument("system", metavar="SYSTEM")
    s.add_argument("-o", "--output", metavar="DIR", help="write DIR/<system>_<machine>.mmd")
    s.set_defaults(func=cmd_diagram)

    s = sub.add_parser("play", help="play a scenario")
    s.add_argument("scenario", metavar="SCENARIO")
    s.add_argument("--seat", action="append", metavar="ROLE=POLICY",
                   help="ROLE: gm, pcs, npcs, first_pc, all or a character id; POLICY: scripted, random, human, llm "
                        "or llm:<model>. Later seats override earlier ones. Default: first PC human, the rest scripted")
    s.add_argument("--seed", type=int, help="dice and random-agent seed (default: a random one, printed)")
    s.add_argument("--log", metavar="FILE", help="default logs/<scenario_id>-<seed>.jsonl")
    s.add_argument("--config", action="append", metavar="KEY=VALUE", help="override a rule option")
    s.add_argument("--create", action="store_true", help="create the PCs at the table instead of using the scenario's")
    s.add_argument("--campaign", metavar="FILE",
                   help="continue a campaign: load what carries over from FILE (if it exists) and write it back at the end")
    s.add_argument("--quiet", action="store_true", help="print nothing but errors")
    s.add_argument("--overwrite", action="store_true", help="replace an existing log file")
    s.add_argument("--lang", choices=LANGS, help="the terminal's language (default: the scenario's, ja for every sample)")
    _llm_flags(s)
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("resume", help="carry on an interrupted session from its log")
    s.add_argument("log", metavar="LOG")
    s.add_argument("--lang", choices=LANGS, help="the terminal's language (default: the scenario's, ja for every sample)")
    s.add_argument("--quiet", action="store_true")
    s.add_argument("--yes", action="store_true", help="seat the language models the log names without asking")
    _llm_flags(s)
    s.set_defaults(func=cmd_resume)

    s = sub.add_parser("serve", help="a table in the browser (127.0.0.1 only): any scenario, any seats")
    s.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    s.add_argument("--logs", metavar="DIR", default="logs",
                   help="where tables are logged and found again for resuming (default logs/, as trpg play)")
    s.add_argument("--lang", choices=LANGS, default="ja", help="the interface's language (default ja)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    _llm_flags(s)
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("llm", help="LLM helpers: run the local demo model")
    llm_sub = s.add_subparsers(dest="llm_command", metavar="LLM_COMMAND", parser_class=_Parser)
    llm_sub.required = True
    t = llm_sub.add_parser("serve", help="serve the local SmolLM2 model (llama.cpp) on 127.0.0.1 until Ctrl-C")
    t.add_argument("--port", type=int, help="port (default: a free one)")
    t.add_argument("--cache-mb", type=_cache_mb, metavar="MB", help="the prompt cache "
                   f"(default {_CACHE_MB_HELP}: about 3.5 GB resident with four seats' prompts; 256: about 1.5 GB, a "
                   "quarter slower; 0: none)")
    t.set_defaults(func=cmd_llm_serve)

    s = sub.add_parser("replay", help="render a log as a transcript, or verify it by replaying")
    s.add_argument("log", metavar="LOG")
    s.add_argument("--verify", action="store_true", help="re-run the session and compare every event")
    s.add_argument("--campaign", metavar="FILE",
                   help="replay the finished session and write the campaign file it ends with (as play --campaign does)")
    s.add_argument("--format", choices=REPLAY_FORMATS,
                   help="story: the story a seat saw, as a chat log (Markdown; story-html: one HTML page); "
                        "audit (default): every decision, answer, roll and state change (md and html: the audit "
                        "transcript, as before)")
    s.add_argument("--html", action="store_true", help="HTML instead of Markdown (with --format story or audit)")
    s.add_argument("--lang", choices=LANGS, default="ja", help="the story's words (default ja)")
    s.add_argument("--seat", metavar="ACTOR", help="only what this seat saw (an actor id, or gm); default: everything")
    s.add_argument("-o", "--output", metavar="FILE")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("examples", help="run worked-example files (default: every system's); exit 1 if a case fails")
    s.add_argument("files", nargs="*", metavar="FILE")
    s.add_argument("-k", "--case", action="append", default=[], help="run only this case id (repeatable)")
    s.add_argument("-v", "--verbose", action="store_true", help="show the decision log of passing cases too")
    s.set_defaults(func=cmd_examples)

    s = sub.add_parser("playtest", help="run a scenario many times and write a report (report.json, report.html)",
                       description="Run a scenario many times and write report.json and report.html. LLM seats "
                                   "(--seat gm=llm, --seat pcs=llm:<model>, model flags below) run every session in this "
                                   "process on one event loop, at most --jobs at once, one model client per seat policy; "
                                   "--executor dask refuses them.")
    s.add_argument("scenario", metavar="SCENARIO")
    s.add_argument("--runs", type=int, required=True, metavar="N", help="number of sessions")
    s.add_argument("--seat", action="append", metavar="ROLE=POLICY",
                   help="as for play; policies scripted, random, llm or llm:<model> (default all=scripted)")
    s.add_argument("--seed", type=int, default=0, help="base seed: session i plays seed S*1_000_003+i (default 0)")
    s.add_argument("--config", action="append", metavar="KEY=VALUE",
                   help="override a rule option in every session, as for play (repeatable; recorded in the report "
                        "and its replay commands)")
    s.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes (default 1: this process); with "
                   "LLM seats: sessions at once on the model")
    s.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="local process pool, or Dask distributed (a LocalCluster on 127.0.0.1 unless --scheduler); "
                        "dask refuses LLM seats (they run in this process)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler address, e.g. tcp://10.0.0.5:8786")
    s.add_argument("--out", required=True, metavar="DIR", help="where report.json, report.html and logs/ go")
    s.add_argument("--keep-logs", action="store_true", help="keep every session's log in DIR/logs "
                   "(failed and stalled sessions get one anyway)")
    s.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    _llm_flags(s)
    s.set_defaults(func=cmd_playtest)

    s = sub.add_parser("compare", help="compare seat policies on the same seeds (compare.json, compare.html)")
    s.add_argument("scenario", metavar="SCENARIO")
    s.add_argument("--policy", action="append", metavar="NAME:ROLE=POLICY[,ROLE=POLICY...]",
                   help="a policy to compare (at least two; the first is the baseline), e.g. base:all=scripted, "
                        "rnd:all=scripted,pcs=random or llm:all=scripted,pcs=llm")
    s.add_argument("--runs", type=int, required=True, metavar="N", help="number of seeds (every policy plays each)")
    s.add_argument("--seed", type=int, default=0, help="base seed: seed i is S*1_000_003+i (default 0)")
    s.add_argument("--config", action="append", metavar="KEY=VALUE",
                   help="override a rule option in every session of every policy, as for play (repeatable)")
    s.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes (default 1); with LLM policies: sessions at once on the model")
    s.add_argument("--executor", choices=("local", "dask"), default="local", help="as for playtest")
    s.add_argument("--scheduler", metavar="ADDRESS", help="a Dask scheduler address")
    s.add_argument("--out", required=True, metavar="DIR", help="where compare.json and compare.html go")
    s.add_argument("--export-decisions", metavar="FILE", help="write every decision as JSON lines to FILE")
    s.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    _llm_flags(s)
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("fuzz", help="fuzz the engine: sessions, kill-and-resume, hostile answers, mutated files",
                       description="Fuzzers that check the engine's promises hold (docs/reliability.md); each prints a "
                                   "summary, the first failure's seed and the command that reproduces it; exit 1 on any "
                                   "failure.")
    from .fuzz.cli import add_arguments as _fuzz_arguments

    _fuzz_arguments(s, _Parser)
    s.set_defaults(func=cmd_fuzz)

    s = sub.add_parser("new-character", help="create a character interactively")
    s.add_argument("system", metavar="SYSTEM")
    s.add_argument("--seed", type=int)
    s.add_argument("-o", "--output", metavar="FILE")
    s.set_defaults(func=cmd_new_character)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    debug = bool(os.environ.get("TRPG_DEBUG"))
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args))
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0
    except Exception as e:
        if debug:
            raise
        print(_error_text(e), file=sys.stderr)
        return EXIT_ERROR


def _error_text(e: Exception) -> str:
    from engine.core.events import LogReadError
    from engine.core.replay import ReplayError
    from engine.core.scenario import ScenarioError

    from .models.config import ConfigError
    from .prompting import PromptError
    from .table import SeatError, TableError

    if isinstance(e, (CLIError, ScenarioError, ReplayError, LogReadError, SeatError, TableError, ConfigError, PromptError)):
        text = str(e)
    elif isinstance(e, ValidationError):
        text = "invalid data: " + "; ".join(f"`{f}`: {p}" if f else p for f, p in format_validation_error(e))
    elif isinstance(e, OSError):
        text = f"{e.filename + ': ' if e.filename else ''}{e.strerror or e}"
    elif isinstance(e, ValueError):
        text = str(e)
    else:
        text = f"internal error: {type(e).__name__}: {e} (set TRPG_DEBUG=1 for the traceback, and please report it)"
    return "trpg: error: " + _paragraph(text)


if __name__ == "__main__":
    sys.exit(main())
