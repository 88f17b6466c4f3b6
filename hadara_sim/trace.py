"""Game traces as JSON Lines, and replay of a trace through the reference engine.

A trace is a list of records, one JSON object per line:
- `{"type": "header", "version", "components", "deal", "policies"}`: the game's deal in full;
- `{"type": "decision", "kind", "player", "options", "choice"}`: every decision that was asked,
  with its legal options (see `hadara_sim.actions`) and the option chosen;
- `{"type": "state", "step", "state"}`: the full state after each step (`Game.snapshot`);
- `{"type": "score", "sheet"}`: the final score sheet, one entry per seat.
`replay` plays the deal again with the recorded choices and checks every record on the way.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .components import ComponentSet
from .component_files import load_components
from .constants import TRACE_VERSION
from .deal import Deals
from .policy import StopGame
from .reference import Game


class Recorder:
    """Collects the records of one game."""

    def __init__(self, deal: Deals | None = None, components: ComponentSet | None = None, policies=()):
        self.records: list[dict] = []
        if deal is not None:
            self.records.append({"type": "header", "version": TRACE_VERSION,
                                 "components": components.digest if components else None,
                                 "deal": deal.to_json(0), "policies": [str(p) for p in policies]})

    def decision(self, kind: str, player: int, options: list[int], choice: int):
        self.records.append({"type": "decision", "kind": kind, "player": player,
                             "options": options, "choice": choice})

    def state(self, step: str, state: dict):
        self.records.append({"type": "state", "step": step, "state": state})

    def final(self, sheet: list[dict]):
        self.records.append({"type": "score", "sheet": sheet})


def write_trace(records: list[dict], path: str | Path):
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")


def read_trace(path: str | Path) -> list[dict]:
    records = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as err:
                    raise ReplayMismatch(f"{path}:{number}: not a JSON record ({err.msg})") from None
    return records


class ReplayMismatch(StopGame):
    """A trace disagrees with what the reference engine does with the same deal and choices."""


class _Checker:
    """Acts as recorder and as every seat's policy: compares each record the game emits with the
    next record of the trace, and answers decisions with the recorded choices."""

    name = "replay"

    def __init__(self, records: list[dict]):
        self.expected = [r for r in records if r["type"] != "header"]
        self.position = 0
        self.last_step = "start"

    def _next(self, kind: str) -> dict:
        if self.position >= len(self.expected):
            raise ReplayMismatch(f"after step {self.last_step}: the engine emits a {kind} record "
                                 "but the trace has ended")
        record = self.expected[self.position]
        self.position += 1
        if record["type"] != kind:
            raise ReplayMismatch(f"after step {self.last_step}: the engine emits a {kind} record where "
                                 f"the trace has {json.dumps(record)[:400]}")
        return record

    def decide(self, decision):
        """Answer with the recorded choice, after checking the engine asks the recorded question."""
        record = self._next("decision")
        got = {"kind": decision.kind, "player": int(decision.view.player[0]),
               "options": np.flatnonzero(decision.legal[0]).tolist()}
        want = {k: record[k] for k in got}
        if got != want:
            raise ReplayMismatch(f"after step {self.last_step}: decision differs\n trace:  {want}\n engine: {got}")
        if record["choice"] not in record["options"]:
            raise ReplayMismatch(f"after step {self.last_step}: the trace chose option {record['choice']} of "
                                 f"'{decision.kind}', which is not among its legal options {record['options']}")
        return np.array([record["choice"]])

    def decision(self, kind, player, options, choice):
        """Already checked in `decide`."""

    def state(self, step, state):
        record = self._next("state")
        self.last_step = step
        if record["step"] != step:
            raise ReplayMismatch(f"step labels differ: trace {record['step']!r}, engine {step!r}")
        diffs = [k for k in state if state[k] != record["state"].get(k)]
        if diffs:
            lines = "\n".join(f"  {k}:\n   trace:  {record['state'].get(k)}\n   engine: {state[k]}" for k in diffs)
            raise ReplayMismatch(f"state after step {step} differs in {', '.join(diffs)}\n{lines}")

    def final(self, sheet):
        record = self._next("score")
        if record["sheet"] != sheet:
            raise ReplayMismatch(f"final score sheets differ\n trace:  {record['sheet']}\n engine: {sheet}")
        if self.position != len(self.expected):
            raise ReplayMismatch("the trace has records after the final score")


def replay(records: list[dict], components: ComponentSet | None = None) -> list[dict]:
    """Rebuild a game from its trace; raise ReplayMismatch at the first disagreement."""
    header = records[0] if records and records[0]["type"] == "header" else None
    if header is None:
        raise ReplayMismatch("the trace has no header record with the deal")
    components = components or load_components()
    if header.get("components") not in (None, components.digest):
        raise ReplayMismatch(f"the trace was played with component set {header['components']}, "
                             f"not {components.digest}: pass that set, replay(records, load_components(PATH))")
    deal = Deals.from_json(header["deal"])
    checker = _Checker(records)
    return Game(deal, components, [checker] * deal.players, recorder=checker).play()
