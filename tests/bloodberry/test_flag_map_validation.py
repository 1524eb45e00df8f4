"""`trpg validate` refuses flag-map data that play cannot use (§7.6), naming the file, the field and the problem.

Each case is a mutated copy of scenarios/bloodberry/salt_festival.yaml. Before these checks, every one of them passed
`trpg validate`, and play then either ran the map to its safety cap (a place without a flag, a flag no place holds,
flags that require each other, a condition no card fits) or crashed with ``RuntimeError: no card left in the deck or
the discard pile`` (more places than the 104-card shoe can deal hands for)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agent.cli import main
from engine.core.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[2]
SALT = ROOT / "scenarios" / "bloodberry" / "salt_festival.yaml"
RAW = yaml.safe_load(SALT.read_text(encoding="utf-8"))
FIELD = "scenes.five_relics.flag_map"


def _fm(raw: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in raw["scenes"] if s.get("flag_map"))["flag_map"]


def _place(raw: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(p for p in _fm(raw)["places"] if p["id"] == pid)


def _flag(raw: dict[str, Any], fid: str) -> dict[str, Any]:
    return next(f for f in _fm(raw)["flags"] if f["id"] == fid)


def _no_flag(raw: dict[str, Any]) -> None:
    del _place(raw, "mizukumo")["flag"]


def _null_flag(raw: dict[str, Any]) -> None:
    _place(raw, "kanransha")["flag"] = None


def _end_flag_nowhere(raw: dict[str, Any]) -> None:
    _place(raw, "goenden")["flag"] = "norito"  # two places hold norito, none the end flag shiotsubo


def _requires_cycle(raw: dict[str, Any]) -> None:
    _flag(raw, "norito")["requires"] = ["kagami"]  # kagami requires norito


def _requires_itself(raw: dict[str, Any]) -> None:
    _flag(raw, "mizu")["requires"] = ["mizu"]


def _too_many_places(raw: dict[str, Any]) -> None:
    fm = _fm(raw)
    for i in range(22):  # 27 places x 2 cards x 2 camps = 108 > 104
        extra = copy.deepcopy(fm["places"][0])
        extra["id"] = f"extra_{i}"
        fm["places"].append(extra)


def _slot_no_card_fits(raw: dict[str, Any]) -> None:
    _place(raw, "goenden")["condition"] = [{"suit": "♠", "colour": "red"}]


def _min_above_max(raw: dict[str, Any]) -> None:
    _place(raw, "mizukumo")["condition"][2] = {"min": 9, "max": 3}


def _face_with_a_number(raw: dict[str, Any]) -> None:
    _place(raw, "kamaya")["condition"][0] = {"face": True, "min": 2}  # face cards have no number (A25)


def _three_of_two_copies(raw: dict[str, Any]) -> None:
    _place(raw, "kanransha")["condition"] = [{"rank": "Q", "suit": "♥"}] * 3  # two decks: two Q♥


def _hands_without_deck(raw: dict[str, Any]) -> None:
    _fm(raw)["hands"] = {"pcs": ["3♦", "7♥"]}


def _hand_of_an_unknown_camp(raw: dict[str, Any]) -> None:
    _fm(raw)["deck"] = ["4♥"]
    _fm(raw)["hands"] = {"others": ["3♦"]}


def _not_a_card(raw: dict[str, Any]) -> None:
    _fm(raw)["deck"] = ["4♥", "11♣"]


def _card_twice(raw: dict[str, Any]) -> None:
    _fm(raw)["deck"] = ["4♥"]
    _fm(raw)["hands"] = {"pcs": ["4♥#1"]}


def _member_in_two_camps(raw: dict[str, Any]) -> None:
    _fm(raw)["camps"][1]["members"].append("suzu")


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    ("no_flag", _no_flag, f"{FIELD}.places.mizukumo.flag", "every place holds a flag"),
    ("null_flag", _null_flag, f"{FIELD}.places.kanransha.flag", "every place holds a flag"),
    ("end_flag_nowhere", _end_flag_nowhere, f"{FIELD}.flags.shiotsubo", "no place holds this flag"),
    ("requires_cycle", _requires_cycle, f"{FIELD}.flags.norito.requires", "cycle"),
    ("requires_itself", _requires_itself, f"{FIELD}.flags.mizu.requires", "cycle"),
    ("too_many_places", _too_many_places, f"{FIELD}.places", "104"),
    ("slot_no_card_fits", _slot_no_card_fits, f"{FIELD}.places.goenden.condition", "no card"),
    ("min_above_max", _min_above_max, f"{FIELD}.places.mizukumo.condition", "no card"),
    ("face_with_a_number", _face_with_a_number, f"{FIELD}.places.kamaya.condition", "no card"),
    ("three_of_two_copies", _three_of_two_copies, f"{FIELD}.places.kanransha.condition", "distinct cards"),
    ("hands_without_deck", _hands_without_deck, f"{FIELD}.hands", "deck"),
    ("hand_of_an_unknown_camp", _hand_of_an_unknown_camp, f"{FIELD}.hands.others", "unknown camp"),
    ("not_a_card", _not_a_card, f"{FIELD}.deck[1]", "not a card"),
    ("card_twice", _card_twice, f"{FIELD}.hands.pcs[0]", "twice"),
    ("member_in_two_camps", _member_in_two_camps, f"{FIELD}.camps", "two camps"),
]


def _write(tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    raw = copy.deepcopy(RAW)
    edit(raw)
    p = tmp_path / f"salt_{name}.yaml"
    p.write_text(yaml.safe_dump(raw, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return p


@pytest.mark.parametrize("name,edit,field,problem", CASES, ids=[c[0] for c in CASES])
def test_trpg_validate_refuses_flag_map_data_play_cannot_use(tmp_path, capsys, name, edit, field, problem):
    p = _write(tmp_path, name, edit)
    with pytest.raises(ScenarioError) as e:
        load_scenario(p)
    msg = str(e.value)
    assert str(p) in msg and field in msg and problem in msg, msg
    assert main(["validate", str(p)]) != 0
    err = capsys.readouterr().err
    assert p.name in err and field in err, err


def test_the_sample_flag_map_still_validates(capsys):
    assert main(["validate", str(SALT)]) == 0
