"""Recording a batch so that each game can be exported as a trace in the reference format."""

from __future__ import annotations

import numpy as np

from ..components import ComponentSet
from ..constants import TRACE_VERSION
from ..deal import Deals
from .scoring import SCORE_COLUMNS


class BatchRecorder:
    """Keeps every decision and state snapshot of a batch; `trace(i)` is game i's trace."""

    def __init__(self, deals: Deals, components: ComponentSet, policy_names=None):
        self.deals, self.components = deals, components
        self.policy_names = policy_names
        self.decisions: list[list[dict]] = [[] for _ in range(len(deals))]
        self.events: list[tuple] = []   # ("state", label, snapshot) or ("decisions", count per game)
        self.sheet = None

    def decision(self, kind, g, seat, legal, choices):
        for i, game in enumerate(g.tolist()):
            self.decisions[game].append({"type": "decision", "kind": kind, "player": int(seat[i]),
                                         "options": np.flatnonzero(legal[i]).tolist(),
                                         "choice": int(choices[i])})
        self.events.append(("mark", np.array([len(d) for d in self.decisions])))

    def state(self, label, snapshot):
        self.events.append(("state", label, snapshot))

    def final(self, sheet):
        self.sheet = sheet

    def trace(self, i: int) -> list[dict]:
        """Game i's records: header, decisions and states in order, final score."""
        header = {"type": "header", "version": TRACE_VERSION, "components": self.components.digest,
                  "deal": self.deals.to_json(i),
                  "policies": list(self.policy_names[i]) if self.policy_names is not None else []}
        records, done = [header], 0
        decisions = self.decisions[i]
        for event in self.events:
            if event[0] == "mark":
                upto = int(event[1][i])
                records.extend(decisions[done:upto])
                done = upto
            else:
                _, label, snap = event
                state = {name: (int(value[i]) if value.ndim == 1 else value[i].tolist())
                         for name, value in snap.items()}
                records.append({"type": "state", "step": label, "state": state})
        P = self.deals.players
        sheet = [{"seat": p, **{k: (float(self.sheet[k][i, p]) if k == "win_share" else int(self.sheet[k][i, p]))
                                for k in SCORE_COLUMNS}} for p in range(P)]
        records.append({"type": "score", "sheet": sheet})
        return records
