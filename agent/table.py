"""The table: who sits in which seat, and the loop that asks them.

Seats are given by role (``--seat ROLE=POLICY``): ``gm``, ``pcs``, ``npcs`` (NPCs, curses and enemies), a character
id, ``first_pc`` or ``all``; later entries override earlier ones for the actors they name. The loop owns the
illegal-answer policy (PettingZoo's wrappers, OpenSpiel's ``HumanBot``): the engine refuses, the table re-asks the
same agent twice with the engine's message, then lets the scripted policy answer and logs the fallback.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from engine.core.decision import Decision, IllegalAnswer
from engine.core.events import InfoEvent
from engine.core.replay import FALLBACK_TOPIC
from engine.core.seat import SeatView
from engine.core.session import Session
from engine.core.visibility import audience

from .base import Agent

__all__ = [
    "SeatSpec",
    "SeatError",
    "Table",
    "TableError",
    "AgentFactory",
    "default_agent_factory",
    "run_many",
    "POLICIES",
    "LLMFactory",
    "is_llm_policy",
    "ROLE_WORDS",
    "MAX_DECISIONS",
    "ILLEGAL_RETRIES",
    "GiveUp",
    "last_resort",
]

POLICIES = ("scripted", "random", "human", "llm")
#: seat words that name groups of actors; anything else is a character id
ROLE_WORDS = ("all", "gm", "pcs", "npcs", "first_pc")
_ALIASES = {"pc": "pcs", "npc": "npcs", "enemies": "npcs", "curses": "npcs"}
_GROUP_OF_ROLE = {"gm": "gm", "pc": "pcs", "npc": "npcs"}
#: safety cap: a session that asks more decisions than this is stalled (a rules or policy loop)
MAX_DECISIONS = 100_000
#: how many times the same agent is re-asked after an illegal answer before the scripted fallback
ILLEGAL_RETRIES = 2

#: builds the agent for a seat: (policy, actor) -> agent
AgentFactory = Callable[[str, str], Agent]
#: builds the agent for an LLM seat from its policy ("llm" or "llm:<model>")
LLMFactory = Callable[[str], Agent]
#: called with the events the session produced since the last call (live narration in the CLI)
Observer = Callable[[Sequence[BaseModel]], None]


class SeatError(ValueError):
    pass


class TableError(RuntimeError):
    pass


@dataclass(frozen=True)
class SeatSpec:
    """Ordered (role, policy) entries; the last entry naming an actor wins."""

    entries: tuple[tuple[str, str], ...]

    @classmethod
    def parse(cls, items: Iterable[str], *, policies: Sequence[str] | None = POLICIES) -> SeatSpec:
        out: dict[str, str] = {}
        for item in items:
            role, sep, policy = item.partition("=")
            role, policy = role.strip(), policy.strip()
            if not sep or not role or not policy:
                raise SeatError(f"bad seat {item!r}: write ROLE=POLICY, e.g. gm=scripted, pcs=random, aoi=human, all=scripted")
            role = _ALIASES.get(role, role)
            if policies is not None and policy not in policies and not is_llm_policy(policy):
                raise SeatError(f"bad seat {item!r}: unknown policy {policy!r}; known: {', '.join(policies)}, llm:<model>")
            out.pop(role, None)  # a repeated role moves to the end: it overrides everything before it
            if role == "all":
                out.clear()  # `all` overrides every seat named before it: those entries would never apply
            out[role] = policy
        return cls(tuple(out.items()))

    @classmethod
    def default(cls) -> SeatSpec:
        """First PC human, everyone else scripted."""
        return cls((("all", "scripted"), ("first_pc", "human")))

    @classmethod
    def from_header(cls, seats: Mapping[str, str]) -> SeatSpec:
        return cls.parse((f"{k}={v}" for k, v in seats.items()), policies=None) if seats else cls.default()

    def to_header(self) -> dict[str, str]:
        return dict(self.entries)

    def policy_for(self, actor: str, role: str, *, first_pc: str | None = None) -> str:
        policy = "scripted"
        group = _GROUP_OF_ROLE.get(role)
        for who, pol in self.entries:
            if who == "all" or who == actor or who == group or (who == "first_pc" and actor == first_pc):
                policy = pol
        return policy

    def __str__(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.entries)


def is_llm_policy(policy: str) -> bool:
    """``llm`` (the configured model) or ``llm:<model>``."""
    return policy == "llm" or (policy.startswith("llm:") and len(policy) > 4)


def default_agent_factory(seed: int = 0, human: Callable[[], Agent] | None = None, llm: LLMFactory | None = None) -> AgentFactory:
    """scripted / random / human / llm agents; one shared instance per policy (random agents are stateless anyway;
    an LLM agent's counters then add up per policy)."""
    cache: dict[str, Agent] = {}

    def make(policy: str, actor: str) -> Agent:
        if policy not in cache:
            if is_llm_policy(policy):
                if llm is None:
                    raise SeatError(
                        f"seat policy {policy!r} needs a model: give --llm-base-url/--llm-model, --llm-config or --llm local "
                        "(or pass an llm factory to default_agent_factory)"
                    )
                cache[policy] = llm(policy)
            elif policy == "scripted":
                from .scripted import ScriptedAgent

                cache[policy] = ScriptedAgent()
            elif policy == "random":
                from .random_agent import RandomAgent

                cache[policy] = RandomAgent(seed)
            elif policy == "human":
                if human is not None:
                    cache[policy] = human()
                else:
                    from .human import HumanAgent

                    cache[policy] = HumanAgent()
            else:
                raise SeatError(f"no agent for policy {policy!r} (known: {', '.join(POLICIES)})")
        return cache[policy]

    return make


class Table:
    """Seats agents at one session and runs it to the end (or until an agent stops it)."""

    def __init__(
        self,
        session: Session,
        seats: SeatSpec,
        agent_factory: AgentFactory | None = None,
        *,
        max_decisions: int = MAX_DECISIONS,
        observer: Observer | None = None,
        fallback: Agent | None = None,
    ):
        self.session = session
        self.seats = seats
        self.agent_factory = agent_factory or default_agent_factory(session.seed)
        self.max_decisions = max_decisions
        self.observer = observer
        self._fallback = fallback
        self._agents: dict[str, Agent] = {}
        self._first: str | None = None
        self._seen = 0
        self.fallbacks = 0
        self.illegal = 0
        self.steps = 0
        self._fell_back_seq = self._fallback_pending()
        self._declared = False

    # -- seats ---------------------------------------------------------------------------------------------------
    def _first_pc(self) -> str | None:
        """The first PC of the table, fixed the first time it is asked (PCs being created keep their place)."""
        if self._first is None:
            for a in self.session.game.actors():
                if self.session.actor_role(a) == "pc":
                    self._first = a
                    break
        return self._first

    def policy_for(self, actor: str) -> str:
        return self.seats.policy_for(actor, self.session.actor_role(actor), first_pc=self._first_pc())

    def agent_for(self, actor: str) -> Agent:
        agent = self._agents.get(actor)
        if agent is None:
            agent = self._agents[actor] = self.agent_factory(self.policy_for(actor), actor)
        return agent

    @property
    def fallback(self) -> Agent:
        if self._fallback is None:
            from .scripted import ScriptedAgent

            self._fallback = ScriptedAgent()
        return self._fallback

    # -- standing answers ----------------------------------------------------------------------------------------
    def standing_answers(self) -> dict[str, dict[str, str]]:
        """What the seated agents declare (``agent.standing_answers(system, actor, role)``): actor → kind → id."""
        s = self.session
        out: dict[str, dict[str, str]] = {}
        for actor in s.game.actors():
            fn = getattr(self.agent_for(actor), "standing_answers", None)
            if fn is not None:
                mine = fn(s.system, actor, s.actor_role(actor))
                if mine:
                    out[actor] = dict(mine)
        return out

    def declare_standing(self) -> None:
        """Before the first answer of a session: the agents' standing answers, declared once (one ``standing``
        event). A resumed session keeps what its log declared (or did not)."""
        self._declared = True
        s = self.session
        if s.is_over or s.answered or s.standing_declared:
            return
        answers = self.standing_answers()
        if answers:
            s.declare_standing(answers)

    # -- the loop ------------------------------------------------------------------------------------------------
    def _next(self) -> Decision | None:
        d = self.session.pending
        if d is not None and self.steps >= self.max_decisions:
            raise TableError(
                f"session {self.session.scenario.id} (seed {self.session.seed}) is still asking after "
                f"{self.steps} decisions (the cap); last decision {d.kind} for {d.actor}: a rules or policy loop?"
            )
        return d

    def mark_seen(self) -> None:
        """Do not show the observer the events already in the session (a resumed session's past)."""
        self._seen = len(self.session.events)

    def _notify(self) -> None:
        if self.observer is not None:
            events = self.session.events
            if self._seen < len(events):
                new = events[self._seen :]
                self._seen = len(events)
                self.observer(new)

    def _submit(self, agent: Agent, decision: Decision, answer: Any, view: SeatView) -> IllegalAnswer | None:
        """Log the agent's own events, then hand its answer to the session (bound to the decision it answers)."""
        for ev in view.events:
            self.session.record(ev)
        view.events.clear()
        # an agent may hand over another policy's answer (an LLM seat's delegated reaction): log who really answered
        policy = getattr(answer, "policy", None)
        try:
            self.session.answer(answer, policy=policy if isinstance(policy, str) and policy else agent.name,
                                seq=decision.seq)
        except IllegalAnswer as e:
            self.illegal += 1
            notify = getattr(agent, "notify_illegal", None)
            if notify is not None:
                notify(e)
            return e
        return None

    def _fall_back(self, agent: Agent, decision: Decision, text: str, data: Mapping[str, Any]) -> None:
        """The one illegal-answer policy's last step: a notice (seen by the decision's actor and the GM), then the
        scripted policy; should even that be refused, the first legal answer the decision offers."""
        self.fallbacks += 1
        self.session.record(InfoEvent(topic=FALLBACK_TOPIC, text=text,
                                      data={"seq": decision.seq, "actor": decision.actor, "policy": agent.name, **data},
                                      to=audience((decision.actor,))))
        self._scripted_answer(decision)

    def _scripted_answer(self, decision: Decision) -> None:
        fb = self.fallback
        try:
            answer = fb.act(self.session.view(decision))
            self.session.answer(answer, policy=fb.name, seq=decision.seq)
        except IllegalAnswer:
            self.session.answer(last_resort(decision), policy="last_resort", seq=decision.seq)

    def _fallback_pending(self) -> int | None:
        """The seq of the pending decision if the (resumed) log stops right after its fallback notice."""
        d = self.session.pending
        events = self.session.events if d is not None else []
        last = events[-1] if events else None
        if isinstance(last, InfoEvent) and last.topic == FALLBACK_TOPIC and d is not None and last.data.get("seq") == d.seq:
            return d.seq
        return None

    def _already_fell_back(self, decision: Decision) -> bool:
        """A resumed log that stops right after a fallback notice: the scripted policy answers, as it did."""
        if self._fell_back_seq is not None and decision.seq == self._fell_back_seq:
            self._fell_back_seq = None
            return True
        return False

    def _stepped(self) -> None:
        self.steps += 1
        self._notify()

    def _retries(self, agent: Agent) -> int | None:
        """How often an agent is re-asked after an illegal answer: ``agent.retries`` (None: until it answers legally,
        as a person at the terminal is), else ``ILLEGAL_RETRIES``."""
        return getattr(agent, "retries", ILLEGAL_RETRIES)

    def _answer_with(self, agent: Agent, d: Decision, answer: Any, view: SeatView, tries: int) -> bool:
        """One answer of ``agent``; True when the decision is answered (legally, or by the fallback)."""
        if isinstance(answer, GiveUp):
            for ev in view.events:
                self.session.record(ev)
            view.events.clear()
            self._fall_back(agent, d, answer.text, answer.data)
            return True
        err = self._submit(agent, d, answer, view)
        if err is None:
            return True
        limit = self._retries(agent)
        if limit is not None and tries > limit:
            self._fall_back(agent, d, f"{agent.name} answered {d.kind} illegally {tries} times; the scripted policy "
                                      "answers", {"error": err.problem})
            return True
        return False

    def step(self) -> None:
        """Answer the pending decision(s): ask each agent, re-ask after an illegal answer, then fall back."""
        if not self._declared:
            self.declare_standing()
        for d in self.session.pending_all():
            if self._already_fell_back(d):
                self._scripted_answer(d)
                continue
            agent = self.agent_for(d.actor)
            tries = 0
            while True:
                view = self.session.view(d)
                tries += 1
                if self._answer_with(agent, d, agent.act(view), view, tries):
                    break
        self._stepped()

    def run(self) -> dict[str, Any]:
        self._notify()
        while self._next() is not None:
            self.step()
        return self.session.outcome or {}

    async def _ask_async(self, d: Decision) -> tuple[Decision, Agent, Any, SeatView]:
        agent = self.agent_for(d.actor)
        view = self.session.view(d)
        act_async = getattr(agent, "act_async", None)
        if act_async is not None and inspect.iscoroutinefunction(act_async):
            answer = await act_async(view)
        else:
            answer = agent.act(view)
        return d, agent, answer, view

    async def step_async(self) -> None:
        """Like ``step``; the members of a simultaneous decision are asked concurrently (their answers are held by
        the session until all are in, so the order they come back in changes nobody's view)."""
        if not self._declared:
            self.declare_standing()
        pending = self.session.pending_all()
        todo: list[Decision] = []
        for d in pending:
            if self._already_fell_back(d):
                self._scripted_answer(d)
            else:
                todo.append(d)
        tries = dict.fromkeys((d.seq for d in todo), 0)
        while todo:
            replies = await asyncio.gather(*(self._ask_async(d) for d in todo))
            again: list[Decision] = []
            for d, agent, answer, view in replies:
                tries[d.seq] += 1
                if not self._answer_with(agent, d, answer, view, tries[d.seq]):
                    again.append(d)
            todo = again
        self._stepped()

    async def run_async(self, *, yield_every: int = 32) -> dict[str, Any]:
        """Like ``run``; awaits agents that have ``act_async`` and yields to other tables now and then."""
        self._notify()
        while self._next() is not None:
            await self.step_async()
            if self.steps % yield_every == 0:
                await asyncio.sleep(0)
        return self.session.outcome or {}


@dataclass(frozen=True)
class GiveUp:
    """What an agent returns when it cannot answer at all (an LLM seat whose model is unreachable, or that gave no
    legal answer within its own re-asks): the table logs ``text``/``data`` as a fallback notice and the scripted
    policy answers."""

    text: str
    data: Mapping[str, Any]


def last_resort(decision: Decision) -> Any:
    """An answer that is always legal where the decision offers one: the first option, the smallest subset, or the
    payload model's defaults (the table's answer when even the scripted policy was refused)."""
    if decision.payload_model is None:
        ids = decision.option_ids
        if decision.pick is None:
            return ids[0]
        return ids[: decision.pick[0]]
    return {"payload": decision.payload_model().model_dump(mode="json")}


async def run_many(
    sessions: Iterable[Session],
    seats: SeatSpec,
    agent_factory: AgentFactory | None = None,
    *,
    per_session: Callable[[Session], AgentFactory] | None = None,
    limit: int | None = None,
    return_exceptions: bool = False,
    max_decisions: int = MAX_DECISIONS,
) -> list[Any]:
    """Run many tables concurrently on one event loop; outcomes in the order of ``sessions``.

    ``agent_factory`` serves every table; ``per_session`` (if given) builds each table's factory from its session
    (e.g. random agents seeded per session; the default factory already seeds them with the session's seed).
    ``limit`` bounds how many tables run at once (LLM endpoints have rate limits).
    """
    sem = asyncio.Semaphore(limit) if limit else None

    async def one(s: Session) -> dict[str, Any]:
        factory = per_session(s) if per_session is not None else agent_factory
        table = Table(s, seats, factory, max_decisions=max_decisions)
        if sem is None:
            return await table.run_async()
        async with sem:
            return await table.run_async()

    return await asyncio.gather(*(one(s) for s in sessions), return_exceptions=return_exceptions)
