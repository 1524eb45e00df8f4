"""Who answered: the agents' side of ``trpg replay --verify`` (issue #13 item 8).

The engine's replay proves that the logged answers produce the logged events; it cannot know which agent gave an
answer, so a log whose answers were rewritten by hand (an edited speech, a ``policy`` changed from ``scripted`` to
``human``) or that carries forged agent events (``model_call``, ``fallback``) would still verify. This module checks,
at every logged answer, what the log's own header says about its seats:

- the answer's ``policy`` is one the seat's agent can log: a ``scripted`` seat logs ``scripted`` (or ``last_resort``
  when even the scripted policy is refused), a ``random`` seat ``random``, a ``human`` seat ``human``, an LLM seat
  ``llm:<model>`` (the model answered), ``forced`` (a single legal option), ``scripted`` (a reaction delegated to the
  scripted policy); any seat but a person's may log ``scripted``/``last_resort`` after a ``fallback`` notice;
- answers that an agent can recompute from the decision are recomputed and must be equal, speech and notes
  included: the scripted policy, the seeded random agent, the table's last resort, a forced single option;
- an LLM answer is the one its last ``model_call`` parsed (the reply is parsed again and must give the logged
  ``parsed``), and that call reported no error;
- ``model_call`` events appear only for LLM seats, ``fallback`` notices only where a fallback answer follows, and
  both name the decision (``seq``) and actor of the answer they precede.

What cannot be checked is what a person typed or what a model replied: a log is not signed. But a person's answer
is then logged as ``human`` on a human seat, and a model's reply is in its ``model_call`` event.
"""

from __future__ import annotations

from typing import Any

from engine.core.decision import Decision, IllegalAnswer
from engine.core.events import AnswerEvent, HeaderEvent, InfoEvent, ModelCallEvent
from engine.core.replay import FALLBACK_TOPIC
from engine.core.session import Session

from .table import SeatSpec, is_llm_policy, last_resort

__all__ = ["Provenance", "provenance"]

_RECOMPUTED = ("scripted", "random", "last_resort", "forced")


def provenance(header: HeaderEvent) -> Provenance:
    """The answer check for a log with this header (``engine.core.replay.verify(path, check=provenance)``)."""
    return Provenance(header)


class Provenance:
    """See the module docstring; one instance per replayed log."""

    def __init__(self, header: HeaderEvent):
        self.seats = SeatSpec.from_header(header.seats)
        self.seed = header.seed
        self._first: str | None = None
        self._agents: dict[str, Any] = {}

    # -- the seat ---------------------------------------------------------------------------------------------------
    def _seat(self, session: Session, actor: str) -> str:
        if self._first is None:  # as the table fixes it: the first PC the first time a seat is looked up
            self._first = next((a for a in session.game.actors() if session.actor_role(a) == "pc"), "")
        return self.seats.policy_for(actor, session.actor_role(actor), first_pc=self._first or None)

    def _agent(self, policy: str) -> Any:
        agent = self._agents.get(policy)
        if agent is None:
            if policy == "random":
                from .random_agent import RandomAgent

                agent = RandomAgent(self.seed)
            else:
                from .scripted import ScriptedAgent

                agent = ScriptedAgent()
            self._agents[policy] = agent
        return agent

    # -- recomputing ------------------------------------------------------------------------------------------------
    def _recompute(self, session: Session, d: Decision, policy: str) -> Any:
        """The answer ``policy`` gives to ``d`` (raises IllegalAnswer where it has none)."""
        if policy == "last_resort":
            raw = last_resort(d)
        elif policy == "forced":
            if d.options is None or len(d.options) != 1 or d.pick is not None:
                raise IllegalAnswer(d, "a forced answer needs a decision with exactly one option")
            raw = d.option_ids[0]
        else:
            raw = self._agent(policy).act(session.view(d))
        return d.check(raw).to_json()

    def _same(self, session: Session, d: Decision, ev: AnswerEvent, policy: str) -> str | None:
        try:
            want = self._recompute(session, d, policy)
        except (IllegalAnswer, ValueError, KeyError) as e:
            return f"the {policy} answer cannot be recomputed ({str(e)[:200]})"
        if want != ev.answer:
            return f"the answer is not the one the {policy} policy gives here (it gives {_brief(want)}, the log has {_brief(ev.answer)})"
        return None

    # -- the check --------------------------------------------------------------------------------------------------
    def __call__(self, session: Session, ev: AnswerEvent, agent_events: list[Any]) -> str | None:
        d = next((m for m in session.pending_all() if m.seq == ev.seq), None)
        if d is None:
            return f"the answer names decision #{ev.seq}, which is not pending"
        if (ev.actor, ev.kind) != (d.actor, d.kind):
            return f"the answer names {_brief(ev.actor, 60)}'s {_brief(ev.kind, 60)}, but decision #{d.seq} is {d.actor}'s {d.kind}"
        seat = self._seat(session, d.actor)
        calls = [e for e in agent_events if isinstance(e, ModelCallEvent)]
        fallbacks = [e for e in agent_events if isinstance(e, InfoEvent) and e.topic == FALLBACK_TOPIC]
        for e in calls:
            if (e.seq, e.actor) != (d.seq, d.actor):
                return f"a model_call for #{e.seq} ({_brief(e.actor, 60)}) stands before the answer to #{d.seq} ({d.actor})"
        if calls and not is_llm_policy(seat):
            return f"a model_call for {d.actor}, whose seat is {seat!r}, not a language model"
        for f in fallbacks:
            if (f.data.get("seq"), f.data.get("actor")) != (d.seq, d.actor):
                return f"a fallback notice for #{_brief(f.data.get('seq'), 40)} stands before the answer to #{d.seq} ({d.actor})"
        if len(fallbacks) > 1:
            return f"{len(fallbacks)} fallback notices for one decision"
        policy = ev.policy
        if fallbacks:
            if seat == "human":
                return "a fallback notice on a human seat (a person is asked until the answer is legal)"
            noticed = str(fallbacks[0].data.get("policy", ""))
            if noticed != seat and not (is_llm_policy(seat) and is_llm_policy(noticed)):
                return f"the fallback notice names the policy {_brief(noticed, 60)}, but the seat is {seat!r}"
            if policy not in ("scripted", "last_resort"):
                return f"after a fallback notice the answer is the scripted policy's or the last resort, not {_brief(policy, 60)}"
            return self._fallback_answer(session, d, ev)
        if is_llm_policy(seat):
            if policy in ("forced", "scripted"):
                if calls:
                    return f"a {policy} answer after model calls without a fallback notice"
                return self._same(session, d, ev, policy)
            if not is_llm_policy(policy):
                return f"an LLM seat ({seat!r}) logged an answer by {_brief(policy, 60)}"
            return self._llm_answer(d, ev, calls)
        if policy == "last_resort" and seat == "scripted":
            return self._fallback_answer(session, d, ev)
        if policy != seat:
            return f"the answer is logged as {_brief(policy, 60)}, but {d.actor}'s seat is {seat!r}"
        if seat in _RECOMPUTED:
            return self._same(session, d, ev, seat)
        return None  # a person's answer: what was typed cannot be recomputed

    def _fallback_answer(self, session: Session, d: Decision, ev: AnswerEvent) -> str | None:
        """The table's fallback: the scripted answer, or the last resort where the scripted one is refused."""
        if ev.policy == "scripted":
            return self._same(session, d, ev, "scripted")
        try:
            self._recompute(session, d, "scripted")
        except (IllegalAnswer, ValueError, KeyError):
            return self._same(session, d, ev, "last_resort")
        return "a last-resort answer although the scripted policy has a legal one"

    def _llm_answer(self, d: Decision, ev: AnswerEvent, calls: list[ModelCallEvent]) -> str | None:
        from .llm import parse_reply

        if not calls:
            return f"an answer by {_brief(ev.policy, 60)} without a model_call"
        last = calls[-1].data
        if last.get("error"):
            return "the last model call before the answer reports an error, yet the model's answer is logged"
        reply = last.get("reply")
        say = "text" in ev.answer or _says(last.get("parsed"))
        parsed = parse_reply(reply if isinstance(reply, str) else None, d, say=say)
        if parsed.answer is None or _jsonish(parsed.answer) != last.get("parsed"):
            return "the model_call's parsed answer is not what its reply says"
        try:
            got = d.check(parsed.answer).to_json()
        except IllegalAnswer as e:
            return f"the model's reply is not legal here ({str(e)[:200]})"
        if got != ev.answer:
            return f"the answer is not the model's reply (the reply gives {_brief(got)}, the log has {_brief(ev.answer)})"
        return None

    def end(self, agent_events: list[Any]) -> str | None:
        kinds = ", ".join(sorted({getattr(e, "type", "?") for e in agent_events}))
        return f"agent events ({kinds}) after the last answer answer nothing"


def _says(parsed: Any) -> bool:
    return isinstance(parsed, dict) and "text" in parsed


def _jsonish(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _brief(value: Any, limit: int = 160) -> str:
    import json

    if isinstance(value, str):
        return repr(value if len(value) <= limit else value[:limit] + "…")
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."
