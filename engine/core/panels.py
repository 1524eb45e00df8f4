"""Panels: what a system shows a seat about the table, as plain data any front end can draw.

A system's ``SystemInfo.panels(observation, compact)`` turns one seat's observation (already filtered by the
engine) into a list of ``Panel``s, all text in the session's language. A panel is drawn as

- its ``title`` as a heading (none when empty: a panel continuing the one before it);
- its ``rows``: a table under the column titles ``header``, or, without a header, label/value lines (the first
  cell of each row is the label);
- its ``lines`` of free text (engagements, the action order, a clock) under that.

The terminal draws them with rich, a browser as HTML; neither knows the system. ``compact`` asks for the short view
shown before each decision (fits one screen); the full view is for the ``state`` command.

A front end also shows the rest of the observation generically (key by key). ``covers`` names the observation's
top-level keys a panel already shows, so that the generic part leaves them out; it is per panel (not declared once
per system) because what a panel covers may depend on ``compact`` and on what the observation holds. The
generic part names keys with ``SystemInfo.labels`` (observation key → the game's term, e.g. ``passion`` → 情熱).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Panel"]


@dataclass(frozen=True)
class Panel:
    title: str
    #: column titles of ``rows`` (empty: rows without a header, drawn as label/value lines)
    header: Sequence[str] = ()
    rows: Sequence[Sequence[str]] = ()
    #: free lines under the table (engagements, the action order, a hand of cards)
    lines: Sequence[str] = field(default_factory=tuple)
    #: the observation's top-level keys this panel shows (left out of the generic view of the rest)
    covers: Sequence[str] = ()
