"""The worked examples of rules/a_game.md §12 are all data cases (engine/systems/a_game/examples/), and every section
of §5 and §7 has at least one case."""

from __future__ import annotations

import re

from engine.core import get_system
from engine.core.examples import load_examples


def _cases() -> list[tuple[str, str]]:
    out = []
    for p in get_system("a_game").examples:
        for c in load_examples(p).cases:
            out.append((c.id, c.spec))
    return out


def test_every_worked_example_of_section_12_is_a_case():
    ids = {cid for cid, _ in _cases()}
    for n in range(1, 19):
        assert any(re.fullmatch(rf"EX-{n:02d}[a-z]?(-.*)?", cid) for cid in ids), f"EX-{n:02d} has no case"


def test_every_section_of_5_and_7_has_a_case():
    specs = " ".join(spec for _, spec in _cases())
    rulebook = {"§5.1": "§4-3", "§5.2": "§4-4-2", "§5.4": "§4-3-C", "§5.5": "§4-4-5", "§5.6": "§4-4-7", "§5.7": "§4-4-6",
                "§5.8": "§4-5-3", "§5.9": "§4-4-4", "§7.2": "§4-3-C", "§7.3": "§4-4-3", "§7.7": "§4-1-1",
                "§7.8": "§4-5-3", "§7.9": "§4-4-4", "§7.10": "§4-5-2", "§7.11": "§4-1-3"}
    for sec in [f"§5.{i}" for i in range(1, 10)] + [f"§7.{i}" for i in range(1, 12)]:
        alt = rulebook.get(sec)
        assert sec in specs or (alt and alt in specs), f"no case names {sec}"
