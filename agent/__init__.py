"""Who sits at the table: scripted, random and human agents, the table loop that seats them, and the CLI."""

from .base import Agent
from .human import HumanAgent, QuitAndSave
from .llm import LLMAgent
from .random_agent import RandomAgent
from .table import SeatSpec, Table, run_many

__all__ = ["Agent", "HumanAgent", "LLMAgent", "QuitAndSave", "RandomAgent", "SeatSpec", "Table", "run_many"]
