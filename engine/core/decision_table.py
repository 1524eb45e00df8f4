"""A system's decision table: every decision kind its rules can ask, as the spec's §8 lists them.

The table is what the rest of the program knows of a system's decisions without reading its rules: who answers
(``who``: the seat role), the shape of the answer, whether it is a mechanical reaction window (an LLM seat may leave
those to the scripted policy), whether speech is expected with it, whether the answer is public, and the "no" answer
of the worked-examples runner. The conformance suite fails when the rules yield a kind the table does not declare,
or one that does not match its entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .standing import StandingAnswer

__all__ = ["DecisionSpec", "decision_table", "shape_of", "WHO", "SHAPES"]

#: who answers: the GM, a PC's player, an NPC's or curse's/enemy's player (the GM's policy unless seated), or any
WHO = ("gm", "pc", "npc", "any")
#: pick one option, pick a subset, or fill a typed payload
SHAPES = ("one", "many", "payload")


@dataclass(frozen=True, slots=True)
class DecisionSpec:
    kind: str
    #: the seat role that answers it (``any``: whoever the rules ask, e.g. any character in a reaction window)
    who: Literal["gm", "pc", "npc", "any"]
    shape: Literal["one", "many", "payload"]
    #: the spec section (documentation; the decision itself names the rule it is asked under)
    rule: str = ""
    #: a mechanical reaction window (reroll, concede, a hero-point window): an LLM seat may leave it to the scripted
    #: policy, and a seat may answer it with a standing answer (``standing``)
    reaction: bool = False
    #: speech or narration is expected with the answer (a declaration, a GM ruling told aloud)
    speech: bool = False
    #: everyone sees the answer (a public act); otherwise its actor and the GM (others hear only its speech)
    public: bool = False
    #: the worked-examples runner's "no" (an option id tried first; ``None``: the runner's generic no-words, or the
    #: smallest subset)
    no: str | None = None
    #: asked as a member of a simultaneous node (answers held until the reveal)
    simultaneous: bool = False
    doc: str = ""
    #: shapes the same kind is also asked in (a choice among table rows, then free text when "free" is chosen)
    other_shapes: frozenset[str] = frozenset()
    #: the standing answers a seat may declare for this window (``engine.core.standing``): reaction windows only
    standing: tuple[StandingAnswer, ...] = ()
    #: the window's name as a player reads it (menus of standing answers)
    title: str = ""

    @property
    def shapes(self) -> frozenset[str]:
        return frozenset({self.shape}) | self.other_shapes

    def mismatch(self, *, shape: str, role: str) -> str | None:
        """Why a decision of this kind asked of a ``role`` actor in ``shape`` does not match the entry, or None."""
        if shape not in self.shapes:
            return f"{self.kind} is declared as {'/'.join(sorted(self.shapes))}, asked as {shape}"
        if self.who != "any" and role != self.who:
            return f"{self.kind} is declared for the {self.who} seat, asked of a {role}"
        return None

    def __post_init__(self) -> None:
        if self.who not in WHO:
            raise ValueError(f"decision {self.kind}: who must be one of {WHO}, not {self.who!r}")
        if self.shape not in SHAPES:
            raise ValueError(f"decision {self.kind}: shape must be one of {SHAPES}, not {self.shape!r}")
        if self.standing and not self.reaction:
            raise ValueError(f"decision {self.kind}: only a reaction window may have standing answers")
        ids = [sa.id for sa in self.standing]
        if len(set(ids)) != len(ids):
            raise ValueError(f"decision {self.kind}: a standing answer id is declared twice in {ids}")


def decision_table(specs: Iterable[DecisionSpec],
                   other_shapes: Mapping[str, Iterable[str]] | None = None,
                   standing: Mapping[str, Iterable[StandingAnswer]] | None = None,
                   titles: Mapping[str, str] | None = None) -> Mapping[str, DecisionSpec]:
    """The table as kind → spec; a kind declared twice is an error. ``other_shapes``: kind → further shapes;
    ``standing``: kind → the standing answers of that reaction window (``engine.core.standing``); ``titles``: kind
    → the window's name for players (every window with standing answers needs one)."""
    out: dict[str, DecisionSpec] = {}
    for s in specs:
        if s.kind in out:
            raise ValueError(f"decision kind {s.kind!r} is declared twice")
        out[s.kind] = s
    for kind, shapes in (other_shapes or {}).items():
        if kind not in out:
            raise ValueError(f"other shapes for undeclared decision kind {kind!r}")
        out[kind] = replace(out[kind], other_shapes=frozenset(shapes))
    for kind, answers in (standing or {}).items():
        if kind not in out:
            raise ValueError(f"standing answers for undeclared decision kind {kind!r}")
        title = (titles or {}).get(kind, "")
        if not title:
            raise ValueError(f"standing answers for {kind!r} without a title for players")
        out[kind] = replace(out[kind], standing=tuple(answers), title=title)
    return out


def shape_of(decision: Any) -> str:
    """The shape a decision is asked in: one, many or payload."""
    if decision.payload_model is not None:
        return "payload"
    return "one" if decision.pick is None else "many"
