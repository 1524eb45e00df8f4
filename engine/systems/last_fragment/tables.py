"""The effective tables of one session (rules/last_fragment.md §9.6–§9.8): the house data or the config's, plus the
scenario's own skills. Built once per session (and by the scenario validator)."""

from __future__ import annotations

from typing import Any

from .config import LastFragmentConfig
from .data import ABILITY_ROWS, SKILLS, SkillDef, abnormality_table

__all__ = ["Tables"]

CATS = ("nouryoku", "chishiki", "inou")


class Tables:
    def __init__(self, cfg: LastFragmentConfig, extra_skills: list[Any] | None = None):
        if cfg.ability_rows is not None:
            rows = tuple(tuple((a.id, a.name) for a in row) for row in cfg.ability_rows)
        else:
            rows = ABILITY_ROWS
        self.rows = rows
        #: ability id → (row index, category)
        self.where: dict[str, tuple[int, str]] = {}
        self.names: dict[str, str] = {}
        self.order: list[str] = []  # ability-list order (§9.7 tie-breaks)
        for r, row in enumerate(rows):
            for cat, (aid, name) in zip(CATS, row):
                self.where[aid] = (r, cat)
                self.names[aid] = name
                self.order.append(aid)
        self.buyable = [a for a in self.order if self.where[a][1] != "inou"]
        self.abn = abnormality_table([a.model_dump() for a in cfg.abnormality_list] if cfg.abnormality_list else None)
        self.abn_by_level: dict[tuple[int, int], str] = {(a["level"], a["face"]): a["id"] for a in self.abn.values()}
        self.skills: dict[str, SkillDef] = dict(SKILLS)
        for s in extra_skills or ():
            self.skills[s.id] = SkillDef(s.id, s.name, s.ability, s.sp_cost, s.kind, s.dice, s.extra, s.timing,
                                         s.self_allowed, s.effect_text, s.extra_text or "なし")

    def category(self, ability: str) -> str:
        return self.where[ability][1]

    def row_inou(self, ability: str) -> str:
        return self.rows[self.where[ability][0]][2][0]

    def inou_parts(self, inou: str) -> tuple[str, str]:
        row = self.rows[self.where[inou][0]]
        return row[0][0], row[1][0]

    def name(self, ability: str) -> str:
        return self.names.get(ability, ability)
