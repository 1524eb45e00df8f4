"""The worked examples of rules/last_fragment.md §12 (E1–E19) are all data cases
(engine/systems/last_fragment/examples/), and every section of §5 and §7 has at least one case."""

from __future__ import annotations

import re

from engine.core import get_system
from engine.core.examples import load_examples


def _cases() -> list[tuple[str, str]]:
    out = []
    for p in get_system("last_fragment").examples:
        for c in load_examples(p).cases:
            out.append((c.id, c.spec or ""))
    return out


def test_every_worked_example_of_section_12_is_a_case():
    ids = {cid for cid, _ in _cases()}
    for n in range(1, 20):
        assert any(re.fullmatch(rf"E{n}(-.*)?", cid) for cid in ids), f"E{n} has no case"


def test_every_section_of_5_and_7_has_a_case():
    specs = " ".join(spec for _, spec in _cases())
    for sec in ["§5.1", "§5.2"] + [f"§7.{i}" for i in range(1, 13)]:
        assert sec in specs, f"no case names {sec}"
