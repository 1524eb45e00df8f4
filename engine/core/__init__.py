"""The core contract every system implements: dice, decisions, events, the session, scenarios, the registry."""

from .decision import Answer, Decision, IllegalAnswer, Option
from .dice import Dice, DiceScriptError, Roll
from .events import EVENT_ADAPTER, EventLog, read_log
from .machine import FlowState, MachineSpec, diagram
from .registry import SystemInfo, get_system, register_system, systems
from .replay import ReplayError, ReplayMismatch, ReplaySummary, render_transcript, resume, session_from_log, verify
from .scenario import LoadedScenario, ScenarioBase, ScenarioError, load_scenario, scenario_json_schema
from .session import GameContext, Session

__all__ = [
    "Answer", "Decision", "IllegalAnswer", "Option", "Dice", "DiceScriptError", "Roll", "EVENT_ADAPTER", "EventLog",
    "read_log", "FlowState", "MachineSpec", "diagram", "SystemInfo", "get_system", "register_system", "systems",
    "LoadedScenario", "ScenarioBase", "ScenarioError", "load_scenario", "scenario_json_schema", "GameContext", "Session",
    "ReplayError", "ReplayMismatch", "ReplaySummary", "render_transcript", "resume", "session_from_log", "verify",
]
