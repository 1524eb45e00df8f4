"""Play a system's sample scenarios for a range of seeds with one seat policy, each session twice: count exceptions,
unfinished sessions, `verify` failures and reruns that differ byte for byte (an issue's "finishes under scripted and
random seats for N seeds each: 0 exceptions, byte-identical per seed, trpg replay --verify passes").

    python scripts/check_seeds.py last_fragment scripted 0 200
    python scripts/check_seeds.py last_fragment random 0 200
"""

from __future__ import annotations

import hashlib
import sys
import tempfile
import time
import traceback
from pathlib import Path

from agent.table import SeatSpec, Table, default_agent_factory
from engine.core import Session, load_scenario
from engine.core.registry import get_system
from engine.core.replay import verify


def main(system: str, policy: str, first: int, last: int) -> int:
    tmp = Path(tempfile.mkdtemp())
    stats = {"sessions": 0, "exceptions": 0, "unfinished": 0, "verify_fail": 0, "rerun_diff": 0, "climax": 0}
    t0 = time.process_time()
    for path in get_system(system).sample_scenarios:
        sc = load_scenario(path)
        for seed in range(first, last):
            digests = []
            for run in range(2):
                log = tmp / f"{path.stem}-{seed}-{run}.jsonl"
                try:
                    seats = SeatSpec.parse([f"all={policy}"])
                    s = Session(sc, seed=seed, log_path=log, seats=seats.to_header())
                    Table(s, seats, default_agent_factory(seed), max_decisions=100_000).run()
                    if run == 0:
                        stats["sessions"] += 1
                        stats["unfinished"] += not s.is_over
                        stats["climax"] += (s.outcome or {}).get("ending") == "climax"
                        try:
                            verify(log)
                        except Exception as e:
                            stats["verify_fail"] += 1
                            print("verify", path.name, seed, e)
                except Exception:
                    stats["exceptions"] += 1
                    traceback.print_exc()
                    print("exception", path.name, seed)
                digests.append(hashlib.sha256(log.read_bytes()).hexdigest() if log.exists() else None)
                log.unlink(missing_ok=True)
            if digests[0] != digests[1]:
                stats["rerun_diff"] += 1
                print("rerun differs", path.name, seed)
    stats["cpu_s"] = round(time.process_time() - t0, 1)
    print(system, policy, f"seeds {first}..{last - 1}", stats)
    bad = stats["exceptions"] + stats["unfinished"] + stats["verify_fail"] + stats["rerun_diff"]
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
