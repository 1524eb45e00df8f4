"""``trpg fuzz``: the fuzzers that keep the engine's promises holding (docs/reliability.md).

- ``sessions`` (``agent.fuzz.sessions``): seeded sessions of every sample scenario with random and mixed seats and
  random rule options, every decision checked (``agent.fuzz.checks``), then replayed, rerun and measured;
- ``resume`` (``agent.fuzz.resume``): ``trpg play`` killed with SIGKILL at a random point, ``trpg resume`` (killed
  again now and then), and the finished log compared byte for byte with an uninterrupted run;
- ``answers`` (``agent.fuzz.answers``): hostile answers through the Python API, each of which must be refused with a
  short message and the state untouched;
- ``files`` (``agent.fuzz.files``): mutated scenarios and logs (``agent.fuzz.mutate``) through ``trpg validate``,
  ``trpg replay --verify`` and ``trpg resume``, each in a process with a time and memory limit
  (``agent.fuzz.sandbox``).

This package names no rule system: it fuzzes whatever the registry holds. Importing it is cheap (the CLI builds
its parser from ``agent.fuzz.cli``); each fuzzer's module is imported when it runs.
"""

from __future__ import annotations

__all__ = ["FUZZERS"]

#: the fuzzers, in the order ``trpg fuzz --help`` lists them
FUZZERS = ("sessions", "resume", "answers", "files")
