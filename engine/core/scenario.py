"""Scenario files: YAML validated by the system's pydantic model, with errors that name file, field and problem."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .quote import brief, measure
from .registry import SystemInfo, get_system, systems

__all__ = ["ScenarioBase", "ScenarioError", "LoadedScenario", "load_scenario", "scenario_json_schema", "format_validation_error",
           "brief", "measure", "MAX_DEPTH", "MAX_VALUES"]


class ScenarioBase(BaseModel):
    """Fields every scenario file has, whatever its system."""

    model_config = ConfigDict(extra="forbid")

    system: str = Field(description="system id: bloodberry, a_game, yogaribito, last_fragment")
    id: str = Field(pattern=r"^[a-z0-9_\-]+$", description="ASCII id of the scenario")
    title: str = Field(min_length=1, description="title shown to players (Japanese allowed)")
    version: str = Field(default="1", description="bump when the scenario's behaviour changes")
    language: str = Field(default="ja", description="narration language: ja or en")
    summary: str = Field(default="", description="one-paragraph pitch shown before play")


#: problems one error message lists (the rest are counted)
MAX_PROBLEMS = 12


#: the longest field path and problem text one error message shows of each problem (a rule's message may quote
#: a value from the file: a 1 MB id must not come back as a 1 MB error)
MAX_FIELD_CHARS = 200
MAX_PROBLEM_CHARS = 400


def _cut(text: str, limit: int) -> str:
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[: limit - 30]}… ({len(text):,} characters)"


class ScenarioError(ValueError):
    """A scenario file that cannot be used. ``str()`` is one paragraph naming file, field and problem."""

    def __init__(self, path: str | Path, problems: list[tuple[str, str]]):
        self.path = str(path)
        self.problems = problems
        parts = [f"field `{_cut(f, MAX_FIELD_CHARS)}`: {_cut(p, MAX_PROBLEM_CHARS)}" if f else _cut(p, MAX_PROBLEM_CHARS)
                 for f, p in problems[:MAX_PROBLEMS]]
        if len(problems) > MAX_PROBLEMS:
            parts.append(f"and {len(problems) - MAX_PROBLEMS} more problems")
        super().__init__(f"{self.path}: invalid scenario: " + "; ".join(parts) + ".")


@dataclass(frozen=True)
class LoadedScenario:
    path: Path
    system: SystemInfo
    model: Any
    sha256: str
    raw: dict[str, Any]

    @property
    def id(self) -> str:
        return str(self.model.id)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's safe loader where PyYAML was built with it (faster, and its parser does not recurse), else PyYAML's;
    a key given twice in one mapping is an error, not silently the last one."""


def _mapping_without_duplicates(loader: Any, node: Any, deep: bool = False) -> Any:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(key_node, deep=True)
        try:
            first = seen.get(key)
        except TypeError:  # an unhashable key: the constructor refuses it itself
            continue
        if first is not None:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {brief(key)} is given twice (first at line {first + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
_LOADER: Any = _Loader
#: the most values a scenario file may expand to (YAML aliases can make a small file huge), and the deepest nesting
MAX_VALUES = 200_000
MAX_DEPTH = 64


def format_validation_error(e: ValidationError) -> list[tuple[str, str]]:
    problems = []
    for err in e.errors():
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        msg = err["msg"]
        if err["type"] not in ("missing", "value_error", "assertion_error") and "input" in err:
            msg = f"{msg} (got {brief(err['input'])})"
        elif err["type"] == "value_error" and msg.startswith("Value error, "):
            msg = msg[len("Value error, ") :]
        problems.append((_loc(loc), msg))
    return problems


def duplicate_id(model: BaseModel, path: str = "") -> tuple[str, str] | None:
    """The first entry of a list of records (anything with an ``id``) that repeats an id of an earlier entry of the
    same list, as (field path, id): two scene actions, places, flags, scenes or info entries with one id would give
    a decision two options with one id, and the second could never be chosen."""
    for name in type(model).model_fields:
        value = getattr(model, name)
        items: list[tuple[str, Any]] = []
        if isinstance(value, list):
            items = [(f"{path}{name}[{i}]", x) for i, x in enumerate(value)]
        elif isinstance(value, dict):
            items = [(f"{path}{name}.{k}", x) for k, x in value.items()]
        elif isinstance(value, BaseModel):
            items = [(f"{path}{name}", value)]
        seen: set[str] = set()
        for where, x in items:
            if not isinstance(x, BaseModel):
                continue
            xid = getattr(x, "id", None)
            if isinstance(value, list) and isinstance(xid, str):
                if xid in seen:
                    return f"{where}.id", xid
                seen.add(xid)
            found = duplicate_id(x, f"{where}.")
            if found is not None:
                return found
    return None


def load_scenario(path: str | Path) -> LoadedScenario:
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise ScenarioError(p, [("", f"cannot read the file ({e.strerror or e})")]) from None
    try:
        raw = yaml.load(data.decode("utf-8"), Loader=_LOADER)  # noqa: S506 (a safe loader)
    except RecursionError:
        raise ScenarioError(p, [("", f"the file nests too deeply to read; at most {MAX_DEPTH} levels")]) from None
    except UnicodeDecodeError as e:
        raise ScenarioError(p, [("", f"not UTF-8 text ({e.reason} at byte {e.start})")]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ScenarioError(p, [("", f"broken YAML{where}: {problem}")]) from None
    if not isinstance(raw, dict):
        raise ScenarioError(p, [("", "the file must be a YAML mapping (key: value) at the top level")])
    values, depth = measure(raw)
    if values > MAX_VALUES:
        raise ScenarioError(p, [("", f"the file expands to more than {MAX_VALUES:,} values (YAML aliases repeating "
                                     "a block?); a scenario is far smaller")])
    if depth > MAX_DEPTH:
        raise ScenarioError(p, [("", f"the file nests {depth} levels deep; at most {MAX_DEPTH}")])
    sys_id = raw.get("system")
    if not isinstance(sys_id, str):
        known = ", ".join(s.id for s in systems())
        raise ScenarioError(p, [("system", f"missing or not a string; one of: {known}")])
    try:
        info = get_system(sys_id)
    except ValueError as e:
        raise ScenarioError(p, [("system", str(e))]) from None
    try:
        model = info.scenario_model.model_validate(raw)
    except ValidationError as e:
        raise ScenarioError(p, format_validation_error(e)) from None
    dup = duplicate_id(model)
    if dup is not None:
        raise ScenarioError(p, [(dup[0], f"the id {brief(dup[1])} is used twice in this list")])
    return LoadedScenario(p, info, model, hashlib.sha256(data).hexdigest(), raw)


def scenario_json_schema(system_id: str | None = None) -> dict[str, Any]:
    """JSON Schema of scenario files: one system's, or a oneOf over every registered system."""
    if system_id is not None:
        return get_system(system_id).scenario_model.model_json_schema()
    schemas = {s.id: s.scenario_model.model_json_schema() for s in systems()}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "trpg-agents scenario",
        "oneOf": [{"$ref": f"#/$defs/{k}"} for k in schemas],
        "$defs": schemas,
    }
