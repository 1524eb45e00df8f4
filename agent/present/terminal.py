"""Story items and the compact sheet drawn with rich for the terminal: the story scrolls as a chat log (speaker,
narration, dice lines), the sheet fits 80 columns and 15 lines. Plain ``Text`` everywhere: the engine's text is never
read as markup."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.panel import Panel as RichPanel
from rich.rule import Rule
from rich.segment import Segment, Segments
from rich.table import Table
from rich.text import Text

from engine.core.story import StoryItem

if TYPE_CHECKING:
    from engine.core.panels import Panel

__all__ = ["render_item", "render_sheet", "sheet_text", "panel_parts", "SHEET_LINES", "SHEET_WIDTH"]

#: the compact sheet's size: at most this many lines (border included), at most this many columns
SHEET_LINES = 15
SHEET_WIDTH = 80

_MARK = {"dice": "🎲 ", "ruling": "⚖ ", "info": "▶ ", "clue": "🔑 ", "change": "・", "reveal": "▶ "}
_STYLE = {"dice": "yellow", "ruling": "magenta", "info": "cyan", "clue": "green", "change": "dim", "reveal": "cyan"}
_SECRET = {"ja": "（秘密）", "en": " (secret)"}


def render_item(item: StoryItem, lang: str = "ja") -> RenderableType:
    """One story item as the terminal shows it."""
    secret = _SECRET.get(lang, _SECRET["ja"]) if item.private else ""
    if item.kind == "heading":
        return Rule(Text(item.text, style="bold"), style="dim")
    if item.kind == "ending":
        return Group(Rule(Text(item.text, style="bold"), style="bold"), *(Text("  " + line) for line in item.lines))
    if item.kind == "narration":
        t = Text()
        t.append(item.speaker or "", style="bold cyan")
        t.append(secret, style="dim")
        t.append("： ")
        t.append(item.text)
        return t
    if item.kind == "speech":
        t = Text()
        t.append(item.speaker, style="bold")
        t.append("「" + item.text + "」")
        return t
    style = _STYLE.get(item.kind, "")
    head = Text(_MARK.get(item.kind, "▶ "), style=style)
    if item.speaker:
        head.append(item.speaker + ": ", style="bold " + style)
    head.append(item.text, style=style)
    head.append(secret, style="dim")
    if item.kind == "dice":
        return Group(head, *(Text("   " + line, style=style) for line in item.lines))
    return head


def panel_parts(panel: Panel) -> list[RenderableType]:
    """A system's panel (``engine.core.panels``): its title, a table (or label/value lines without a header), its
    lines. Cells are plain text, never markup."""
    out: list[RenderableType] = []
    if panel.title:
        out.append(Text(panel.title, style="bold underline"))
    if panel.header:
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for h in panel.header:
            table.add_column(Text(str(h)))
        for row in panel.rows:
            table.add_row(*(Text(str(c)) for c in row))
        out.append(table)
    elif panel.rows:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="bold", no_wrap=True)
        for _ in range(max(len(r) for r in panel.rows) - 1):
            grid.add_column()
        for row in panel.rows:
            grid.add_row(*(Text(str(c)) for c in row))
        out.append(grid)
    out.extend(Text(str(line)) for line in panel.lines)
    return out


def render_sheet(console: Console, panels: Sequence[Panel], title: str = "", *, more: str = "…",
                 max_lines: int = SHEET_LINES, max_width: int = SHEET_WIDTH) -> RenderableType | None:
    """The compact sheet: the panels in a frame, at most ``max_lines`` lines and ``max_width`` columns; what does
    not fit is cut (the last line says so: ``more``)."""
    parts: list[RenderableType] = []
    for p in panels:
        parts += panel_parts(p)
    if not parts:
        return None
    width = min(console.width, max_width)
    inner = width - 4  # the frame and its padding
    opts = console.options.update(width=inner, height=None)
    lines = console.render_lines(Group(*parts), opts, pad=False)
    body = max_lines - 2
    if len(lines) > body:
        lines = lines[: body - 1] + [[Segment(more, console.get_style("dim"))]]
    segs: list[Segment] = []
    for i, line in enumerate(lines):
        segs.extend(line)
        if i < len(lines) - 1:
            segs.append(Segment.line())
    return RichPanel(Segments(segs), title=Text(title) if title else None, title_align="left", border_style="cyan",
                     width=width, padding=(0, 1))


def sheet_text(console: Console, panels: Sequence[Panel]) -> str:
    """The sheet's text (to tell whether it changed since it was last shown)."""
    return "\n".join(f"{p.title}|{p.header}|{p.rows}|{p.lines}" for p in panels)
