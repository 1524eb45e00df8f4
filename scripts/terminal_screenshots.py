"""Terminal screenshots for docs/screenshots: each system's first sample, seed 7, `trpg play` in tmux at 80×24 and
160×50 after N answers of 1 (the pane as text, and as SVG with its colours, drawn by rich). Needs tmux, and `trpg`
on the PATH (the venv active).

    python scripts/terminal_screenshots.py 10
"""

import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

ROOT = Path(__file__).resolve().parents[1]
TMP = tempfile.mkdtemp()
OUT = ROOT / "docs" / "screenshots"
SAMPLES = {"bloodberry": "scenarios/bloodberry/inoiri_dolls.yaml", "yogaribito": "scenarios/yogaribito/night_of_the_count.yaml",
           "a_game": "scenarios/a_game/yomichi_no_hikari.yaml", "last_fragment": "scenarios/last_fragment/shuuden_no_mukou.yaml"}


def sh(*a: str) -> str:
    return subprocess.run(a, capture_output=True, text=True).stdout


def main(answers: int) -> None:
    for sid, path in SAMPLES.items():
        for (w, h) in ((80, 24), (160, 50)):
            name = f"term-{sid}-{w}x{h}"
            subprocess.run(["tmux", "kill-session", "-t", "shot"], capture_output=True)
            subprocess.run(["tmux", "new-session", "-d", "-s", "shot", "-x", str(w), "-y", str(h)])
            log = f"{TMP}/{name}.jsonl"
            Path(log).unlink(missing_ok=True)
            subprocess.run(["tmux", "send-keys", "-t", "shot", f"cd {ROOT}; clear; trpg play {path} --seed 7 --log {log}", "Enter"])
            time.sleep(6)
            for _ in range(answers):
                subprocess.run(["tmux", "send-keys", "-t", "shot", "1", "Enter"])
                time.sleep(0.8)
            ansi = sh("tmux", "capture-pane", "-t", "shot", "-p", "-e")
            (OUT / f"{name}.txt").write_text(sh("tmux", "capture-pane", "-t", "shot", "-p"), encoding="utf-8")
            c = Console(record=True, width=w, height=h, file=io.StringIO(), force_terminal=True,
                        color_system="truecolor")
            c.print(Text.from_ansi(ansi.rstrip("\n")), end="")
            c.save_svg(str(OUT / f"{name}.svg"), title=f"trpg play {path} ({w}×{h})")
            subprocess.run(["tmux", "send-keys", "-t", "shot", "quit", "Enter"])
            time.sleep(1)
            print(name)
    subprocess.run(["tmux", "kill-session", "-t", "shot"], capture_output=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
