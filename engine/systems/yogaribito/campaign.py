"""The campaign file of 夜狩り人: what one session hands the next (rules/yogaribito.md §7.11; ARCHITECTURE.md,
"campaign persistence").

A session's outcome carries ``campaign`` (``game.YogaribitoGame._outcome``); ``trpg play SCENARIO --campaign FILE``
writes it to FILE at the end and the next ``trpg play OTHER --campaign FILE`` hands it back to the game as the
session option ``campaign`` (and the file's name as ``campaign_file``, for the messages). What carries over:

- ``pcs``: every living PC with a creation record, as a scenario sheet after growth (``creation.sheet_of``: classes,
  feats and XP purchases, stocked items, banked XP and stock points, lifepath, personal data). A replacement PC made in
  an afterplay (D53, ``<dead>_2``) is one of them.
- ``dead``: the PCs that died in any session so far (§7.11.4 "a dead PC is removed"): a scenario PC of that id is not
  seated again; its replacement, if its player made one, plays instead.
- ``replacements``: dead PC → the PC that replaced it (for the record).
- ``sessions_played``.

Values that return to base at scenario end (§7.10.3: life, soul, luck, wealth, bullets, 燎, statuses) need not be
carried: the next scenario starts from the sheets. ``read_campaign`` checks all of it against the session's rule
options and names the file and the field of every problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ...core.scenario import format_validation_error
from .config import YogaribitoConfig
from .creation import YogaribitoPCSheet, character_from_sheet
from .state import Character

__all__ = ["CampaignError", "YogaribitoCampaign", "read_campaign"]


class CampaignError(ValueError):
    """A campaign file this session cannot continue from. ``str()`` names the file, the field and the problem."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source = source
        self.problems = problems
        parts = [f"field `{f}`: {p}" if f else p for f, p in problems[:10]]
        if len(problems) > 10:
            parts.append(f"and {len(problems) - 10} more problems")
        super().__init__(f"{source}: invalid 夜狩り人 campaign: " + "; ".join(parts) + ".")


class YogaribitoCampaign(BaseModel):
    """The campaign mapping (see the module docstring). The sheets are checked one by one by ``read_campaign``."""

    model_config = ConfigDict(extra="forbid")

    system: Literal["yogaribito"] = "yogaribito"
    pcs: dict[str, dict[str, Any]] = Field(default_factory=dict, description="PC id -> sheet after growth")
    sessions_played: int = Field(0, ge=0)
    dead: list[str] = Field(default_factory=list, description="PCs that died in an earlier session")
    replacements: dict[str, str] = Field(default_factory=dict, description="dead PC -> its replacement")


def read_campaign(data: Any, *, cfg: YogaribitoConfig, source: str = "campaign"
                  ) -> tuple[YogaribitoCampaign, dict[str, Character]]:
    """The campaign and its PCs, built under the session's rule options ``cfg``. Raises ``CampaignError`` listing
    every problem (a field that is not a campaign's, a sheet that is not legal, a PC both alive and dead ...)."""
    if not isinstance(data, Mapping):
        raise CampaignError(source, [("", "a campaign is a mapping with system, pcs and sessions_played")])
    try:
        camp = YogaribitoCampaign.model_validate(dict(data))
    except ValidationError as e:
        raise CampaignError(source, format_validation_error(e)) from None
    problems: list[tuple[str, str]] = []
    chars: dict[str, Character] = {}
    for pid, sheet in camp.pcs.items():
        where = f"pcs.{pid}"
        if sheet.get("id", pid) != pid:
            problems.append((f"{where}.id", f"the sheet says {sheet.get('id')!r}, the campaign lists it as {pid!r}"))
            continue
        if pid in camp.dead:
            problems.append((where, f"{pid} is listed as dead (field `dead`) and alive at once"))
            continue
        try:
            YogaribitoPCSheet.model_validate({**sheet, "id": pid}, context={"config": cfg.model_dump()})
            chars[pid] = character_from_sheet({**sheet, "id": pid}, cfg=cfg)
        except ValidationError as e:
            problems += [(f"{where}.{f}" if f else where, p) for f, p in format_validation_error(e)]
        except ValueError as e:
            problems.append((where, str(e)))
    for dead, new in camp.replacements.items():
        if new not in camp.pcs and new not in camp.dead:
            problems.append((f"replacements.{dead}", f"{new!r} is neither a PC of the campaign nor a dead one"))
    if problems:
        raise CampaignError(source, problems)
    return camp, chars
