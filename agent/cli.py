"""``trpg``: play, resume, replay and check sessions from the terminal.

Every error is one paragraph on stderr and exit code 2, never a traceback (set ``TRPG_DEBUG=1`` to see one);
Ctrl-C exits with 130 and the log kept, ready for ``trpg resume``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import secrets
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import yaml
from pydantic import BaseModel, ValidationError
from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from engine.core.events import EndEvent, NarrationEvent, PhaseEvent, read_log
from engine.core.machine import diagram
from engine.core.registry import get_system, systems
from engine.core.replay import brief_outcome, render_transcript, resume, verify
from engine.core.scenario import format_validation_error, load_scenario, scenario_json_schema
from engine.core.session import Session

from .base import Agent
from .human import HumanAgent, QuitAndSave
from .table import ROLE_WORDS, AgentFactory, SeatSpec, Table, default_agent_factory

__all__ = ["main", "CLIError"]

EXIT_FAILED = 1  # checks ran and some failed (examples)
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130


class CLIError(Exception):
    """An error the user can fix; printed as one paragraph."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise CLIError(f"{self.prog}: {message} (see {self.prog} --help)")


def _paragraph(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", str(text)).strip()


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


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


def _printer(console: Console) -> Callable[[Sequence[BaseModel]], None]:
    def show(events: Sequence[BaseModel]) -> None:
        for e in events:
            if isinstance(e, NarrationEvent):
                console.print(f"[bold]{escape(e.actor)}[/]: {escape(e.text)}")
            elif isinstance(e, PhaseEvent):
                console.rule(f"[dim]{escape(e.machine)}: {escape(e.dst)}[/]", style="dim")

    return show


def _factory(seed: int, console: Console) -> AgentFactory:
    def human() -> Agent:
        return HumanAgent(console)

    return default_agent_factory(seed, human)


def _summary(console: Console, session: Session, table: Table | None, log: Path | str | None) -> None:
    console.rule("[bold]end[/]")
    outcome = session.outcome or {}
    for k, v in outcome.items():
        console.print(f"  {escape(str(k))}: {escape(v if isinstance(v, str) else brief_outcome(v, 110))}")
    bits = [f"{session.decisions} decisions", f"{len(session.dice.rolls)} rolls"]
    if table is not None and table.fallbacks:
        bits.append(f"{table.fallbacks} scripted fallbacks")
    if log:
        bits.append(f"log {log}")
    console.print(escape("; ".join(bits)), style="dim")


def _run_table(session: Session, table: Table, log: Path | str, quiet: bool, console: Console) -> int:
    try:
        table.run()
    except QuitAndSave:
        session.close()
        print(f"saved: resume with trpg resume {log}")
        return 0
    except KeyboardInterrupt:
        session.close()
        print(f"interrupted: the log is saved; resume with trpg resume {log}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BaseException:
        session.close()
        raise
    if not quiet:
        _summary(console, session, table, log)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario)
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    seats = SeatSpec.parse(args.seat) if args.seat else SeatSpec.default()
    config = _parse_config(args.config or [])
    options: dict[str, Any] = {"create_pcs": True} if args.create else {}
    log = Path(args.log) if args.log else Path("logs") / f"{scenario.id}-{seed}.jsonl"
    if log.exists() and not args.overwrite:
        raise CLIError(
            f"the log {log} already exists; resume it with `trpg resume {log}`, choose another file with --log, "
            "or pass --overwrite"
        )
    console = _out()
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
    if not args.quiet:
        console.print(f"[bold]{escape(str(getattr(scenario.model, 'title', scenario.id)))}[/] — seed {seed}, seats {escape(str(seats))}, log {escape(str(log))}")
    table = Table(session, seats, _factory(seed, console), observer=None if args.quiet else _printer(console))
    return _run_table(session, table, log, args.quiet, console)


def cmd_resume(args: argparse.Namespace) -> int:
    console = _out()
    session = resume(args.log)
    if session.is_over:
        print(f"{args.log}: the session had already ended; its last events were restored")
        if not args.quiet:
            _summary(console, session, None, args.log)
        return 0
    seats = SeatSpec.from_header(session.seats)
    table = Table(session, seats, _factory(session.seed, console), observer=None if args.quiet else _printer(console))
    table.mark_seen()
    if not args.quiet:
        d = session.pending
        assert d is not None
        console.print(f"resumed {escape(str(args.log))} at decision #{d.seq} ({escape(d.kind)} for {escape(d.actor)}), seats {escape(str(seats))}")
        recap = [e for e in session.events if isinstance(e, NarrationEvent)][-3:]
        _printer(console)(recap)
    return _run_table(session, table, args.log, args.quiet, console)


def cmd_replay(args: argparse.Namespace) -> int:
    if args.verify:
        print(verify(args.log).text())
        if not args.output and not args.format:
            return 0
    events, truncated = read_log(args.log)
    text = render_transcript(events, args.format or "md")
    _write_or_print(text, args.output)
    if truncated or not isinstance(events[-1], EndEvent):
        print(f"note: {args.log} is unfinished; resume it with `trpg resume {args.log}`", file=sys.stderr)
    return 0


def _lazy(module: str, what: str) -> Any:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and module.startswith(e.name):
            raise CLIError(f"{what} is not available in this version (module {module} is missing)") from None
        raise


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
    table = Table(session, SeatSpec.parse(["all=scripted", "pcs=human"]), _factory(seed, console), observer=_printer(console))
    try:
        outcome = table.run()
    except QuitAndSave:
        print("character creation abandoned", file=sys.stderr)
        return 0
    sheet = outcome.get("sheet", outcome)
    text = yaml.safe_dump(sheet, allow_unicode=True, sort_keys=False)
    _write_or_print(text, args.output)
    return 0


# -- the parser --------------------------------------------------------------------------------------------------
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
                   help="ROLE: gm, pcs, npcs, first_pc, all or a character id; POLICY: scripted, random, human. "
                        "Later seats override earlier ones. Default: first PC human, the rest scripted")
    s.add_argument("--seed", type=int, help="dice and random-agent seed (default: a random one, printed)")
    s.add_argument("--log", metavar="FILE", help="default logs/<scenario_id>-<seed>.jsonl")
    s.add_argument("--config", action="append", metavar="KEY=VALUE", help="override a rule option")
    s.add_argument("--create", action="store_true", help="create the PCs at the table instead of using the scenario's")
    s.add_argument("--quiet", action="store_true", help="print nothing but errors")
    s.add_argument("--overwrite", action="store_true", help="replace an existing log file")
    s.set_defaults(func=cmd_play)

    s = sub.add_parser("resume", help="carry on an interrupted session from its log")
    s.add_argument("log", metavar="LOG")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_resume)

    s = sub.add_parser("replay", help="render a log as a transcript, or verify it by replaying")
    s.add_argument("log", metavar="LOG")
    s.add_argument("--verify", action="store_true", help="re-run the session and compare every event")
    s.add_argument("--format", choices=("md", "html"))
    s.add_argument("-o", "--output", metavar="FILE")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("examples", help="run worked-example files (default: every system's); exit 1 if a case fails")
    s.add_argument("files", nargs="*", metavar="FILE")
    s.add_argument("-k", "--case", action="append", default=[], help="run only this case id (repeatable)")
    s.add_argument("-v", "--verbose", action="store_true", help="show the decision log of passing cases too")
    s.set_defaults(func=cmd_examples)

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

    from .table import SeatError, TableError

    if isinstance(e, (CLIError, ScenarioError, ReplayError, LogReadError, SeatError, TableError)):
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
