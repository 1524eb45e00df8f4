"""The terminal's presentation: the story items of ``engine.core.story`` drawn with rich, the compact sheet, and every
word of the interface in the session's language (``words``)."""

from .terminal import render_item, render_sheet, sheet_text
from .words import LANGS, interface_words

__all__ = ["render_item", "render_sheet", "sheet_text", "interface_words", "LANGS"]
