"""The core contract every system implements: dice, decisions, events, the session, scenarios, the registry."""

from . import ask
from .decision import Answer, Decision, IllegalAnswer, Option, Simultaneous, StaleDecision
from .dice import Dice, DiceScriptError, Roll
from .events import EVENT_ADAPTER, EventLog, read_log
from .machine import FlowState, MachineSpec, diagram
from .registry import SystemInfo, get_system, register_system, systems
from .replay import ReplayError, ReplayMismatch, ReplaySummary, render_transcript, resume, session_from_log, verify
from .scenario import LoadedScenario, ScenarioBase, ScenarioError, load_scenario, scenario_json_schema
from .seat import SeatView
from .session import GameContext, Session
from .visibility import Secret, seen_by, visible

__all__ = [
    "ask", "Simultaneous", "StaleDecision", "SeatView", "Secret", "visible", "seen_by",
    "Answer", "Decision", "IllegalAnswer", "Option", "Dice", "DiceScriptError", "Roll", "EVENT_ADAPTER", "EventLog",
    "read_log", "FlowState", "MachineSpec", "diagram", "SystemInfo", "get_system", "register_system", "systems",
    "LoadedScenario", "ScenarioBase", "ScenarioError", "load_scenario", "scenario_json_schema", "GameContext", "Session",
    "ReplayError", "ReplayMismatch", "ReplaySummary", "render_transcript", "resume", "session_from_log", "verify",
]
