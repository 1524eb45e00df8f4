"""The session's only source of chance.

Like BCDice's injected ``Randomizer`` and OpenSpiel's chance player: every roll goes through one ``Dice`` object,
is recorded with its purpose and die size, and can be forced. Nothing else in ``engine`` imports ``random``.

Three ways to get faces:

* seeded (default): a ``random.Random(seed)`` stream; same seed, same faces, same order.
* forced faces (``force``): queued faces are used before the stream; designers use this to pin a situation, the
  stream is not consumed for a forced face.
* scripted (``Dice.scripted``): only the queued faces; an unexpected die size or running out raises
  ``DiceScriptError`` (BCDice's test mock behaviour), so a test can never silently fall back to luck.

A forced face is ``5`` (for any die) or ``"d6:5"`` / ``(6, 5)`` (for a d6 only). The queue keeps its order: each roll
looks at the head of the queue only, never behind it:

* the head has no size, or the size of the die rolled: the die takes it (the stream is not consumed); a value that
  does not fit the die (``7`` on a d6, ``"d4:5"``) raises ``DiceScriptError``;
* the head is for another size (a ``"d6:3"`` when a d4 is rolled): outside scripted mode the die draws from the
  seeded stream, exactly as if nothing were queued, and the head stays where it is, waiting for the next die of its
  size; faces behind it wait too, even faces of the size being rolled (``["d6:5", "d4:2"]``: every d4 rolled before
  the next d6 comes from the stream, then the d6 takes 5 and the next d4 takes 2). In scripted mode it raises
  ``DiceScriptError``.

Head of the queue rather than "the first queued face of this size": the faces are a sequence the designer wrote in
the order the situation unfolds (the d6 check, then its d4 damage), and the rule keeps that order, so a d4 rolled
for something else before the check cannot take the damage face; and the same queue gives the same faces to the
same dice in forced and scripted mode (scripted mode only turns a draw from the stream into an error). The price: a
sized face for a die that never comes blocks the faces behind it; ``forced_left`` tells how many faces were not used.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Dice", "Roll", "DiceScriptError"]


class DiceScriptError(RuntimeError):
    """A scripted-dice run asked for a die the script does not have (wrong size, or faces ran out)."""


@dataclass(slots=True, unsafe_hash=True)
class Roll:
    """One die rolled (a value object: never changed after it is made; not ``frozen`` only because a frozen
    dataclass is three times slower to build, and a session rolls hundreds)."""

    purpose: str
    sides: int
    value: int
    forced: bool
    #: a draw nobody at the table may see (a shuffle: the order of a hidden deck); logged for the GM only
    secret: bool = False


def _parse_face(face: int | str | tuple[int, int] | list[int]) -> tuple[int | None, int]:
    """A forced face is ``5`` (any die), ``"d6:5"`` or ``(6, 5)`` (a d6 only; see the module docstring)."""
    if isinstance(face, bool):
        raise ValueError(f"bad forced face {face!r}")
    if isinstance(face, int):
        return None, face
    if isinstance(face, str):
        text = face.strip().lower()
        if ":" in text:
            size, _, value = text.partition(":")
            return int(size.lstrip("d")), int(value)
        return None, int(text)
    if isinstance(face, (tuple, list)) and len(face) == 2:
        return int(face[0]), int(face[1])
    raise ValueError(f"bad forced face {face!r}")


class Dice:
    """Seeded dice with a log of every roll; see the module docstring."""

    __slots__ = ("seed", "_rng", "_forced", "_scripted", "rolls", "_listener")

    def __init__(self, seed: int = 0, forced: Iterable[int | str | tuple[int, int]] = (), *, scripted: bool = False):
        self.seed = seed
        self._rng = random.Random(seed)
        self._forced: deque[tuple[int | None, int]] = deque(_parse_face(f) for f in forced)
        self._scripted = scripted
        self.rolls: list[Roll] = []
        self._listener: Callable[[Roll], None] | None = None

    @classmethod
    def scripted(cls, faces: Iterable[int | str | tuple[int, int]]) -> Dice:
        return cls(0, faces, scripted=True)

    def listen(self, listener: Callable[[Roll], None] | None) -> None:
        """The session subscribes here so that every roll becomes a log event at the moment it happens."""
        self._listener = listener

    def force(self, faces: Iterable[int | str | tuple[int, int]]) -> None:
        self._forced.extend(_parse_face(f) for f in faces)

    @property
    def forced_left(self) -> int:
        return len(self._forced)

    def roll(self, sides: int, purpose: str, *, secret: bool = False) -> int:
        if sides < 1:
            raise ValueError(f"a die needs at least one side, got {sides}")
        if self._forced:
            want, value = self._forced[0]
            if want is None or want == sides:
                if not 1 <= value <= sides:
                    raise DiceScriptError(f"forced face {value} does not fit a d{sides} (rolled for {purpose!r})")
                self._forced.popleft()
                forced = True
            elif self._scripted:
                raise DiceScriptError(f"scripted dice: next face is for a d{want}, but a d{sides} was rolled for {purpose!r}")
            else:
                # the head of the queue is for another die size: it stays queued for the next die of its size
                value = self._rng._randbelow(sides) + 1  # type: ignore[attr-defined]
                forced = False
        elif self._scripted:
            raise DiceScriptError(f"scripted dice ran out: a d{sides} was rolled for {purpose!r}")
        else:
            # randint(1, sides) without its two layers of argument checks: the same draw from the same stream
            value = self._rng._randbelow(sides) + 1  # type: ignore[attr-defined]
            forced = False
        r = Roll(purpose, sides, value, forced, secret) if secret else Roll(purpose, sides, value, forced)
        self.rolls.append(r)
        if self._listener is not None:
            self._listener(r)
        return value

    def d6(self, purpose: str) -> int:
        return self.roll(6, purpose)

    def pool(self, n: int, purpose: str, sides: int = 6) -> list[int]:
        return [self.roll(sides, purpose) for _ in range(max(0, n))]

    def shuffle(self, items: list, purpose: str, *, secret: bool = True) -> list:
        """Fisher-Yates with logged draws, so that a shuffle is replayable and forceable like any roll. The draws of a
        hidden deck's shuffle are ``secret`` (logged for the GM only: they would tell the deck's order)."""
        out = list(items)
        if self._forced or self._scripted:
            for i in range(len(out) - 1, 0, -1):
                j = self.roll(i + 1, purpose, secret=secret) - 1
                out[i], out[j] = out[j], out[i]
            return out
        # ``roll`` inlined for a free-running die (a shoe of 104 cards is 103 draws): the same draws, the same rolls
        below = self._rng._randbelow  # type: ignore[attr-defined]
        rolls = self.rolls
        listener = self._listener
        for i in range(len(out) - 1, 0, -1):
            j = below(i + 1)
            r = Roll(purpose, i + 1, j + 1, False, secret) if secret else Roll(purpose, i + 1, j + 1, False)
            rolls.append(r)
            if listener is not None:
                listener(r)
            out[i], out[j] = out[j], out[i]
        return out
