"""A swept key: the place in a scenario that one `[sweep]` entry varies, in each form it takes.

A scenario names the place as text, `"policies[0].params.coin"`; the scenario code follows its path,
`("policies", 0, "params", "coin")`, into the TOML document; a results directory stores the text
with each combination's values, and `load_results` spreads those values into a typed column,
`sweep_policies_0__params_coin`; the reports take the text back from a dataset's metadata or the
command line. `SweptKey` holds these forms together: the text is read into a path and turned into a
column name here only. The column is made from the text as written (not from the path), so
"policies.0.params.coin" and "policies[0].params.coin" name two columns, as they always have: the
datasets written before read the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from .problems import ascii_whole

_INDEX = re.compile(r"\[(\d+)\]")
_SETUP_VALUE = re.compile(r"^components\.setup\.([1-5])([AB])\.(\w+)$")


@dataclass(frozen=True)
class SweptKey:
    """One swept key: its text as the scenario writes it (the key in a run's metadata, the key of the
    `sweep` column's JSON and what the reports show), its path and its column."""

    text: str

    @cached_property
    def path(self) -> tuple:
        """"policies[0].params.coin" or "policies.0.params.coin" -> ("policies", 0, "params", "coin")."""
        parts = _INDEX.sub(r".\1", self.text).split(".")
        # (str.isdigit() held for '²', which int() refused: "unexpected ValueError"; and '１', read as 1)
        path = tuple(p if ascii_whole(p) is None else int(p) for p in parts if p != "")
        if path[:1] == ("components",):
            return tuple(map(str, path))  # ids and epochs are table keys: "3" in silver_price.3
        return path

    @property
    def column(self) -> str:
        """The typed column of the key's values in a loaded dataset: "components.setup.3B.culture"
        -> "sweep_components_setup_3B_culture"."""
        return "sweep_" + "".join(ch if ch.isalnum() else "_" for ch in self.text).strip("_")

    @property
    def stem(self) -> str:
        """The key in a file name (a report's figure): "components.setup.3B.culture" ->
        "components-setup-3B-culture"."""
        return re.sub(r"[^A-Za-z0-9]+", "-", self.text).strip("-")

    @property
    def component_value(self) -> bool:
        """Whether the key sets a value of the component set ("components.setup.3B.culture")."""
        # Only such a value is a number on a scale; players or a setup grid's setup.card are numbers
        # too, but they name settings to choose among, over which no curve means anything.
        return self.path[:1] == ("components",)

    @property
    def setup_value(self) -> tuple[int, str, str] | None:
        """(initiative, side, value) of a setup card value, "components.setup.3B.culture" ->
        (3, "B", "culture"); None for any other key."""
        # Matched on the text, not the path: a key that only a path would read ("components.setup..3B.
        # culture") has never named a setup card's value in the reports.
        found = _SETUP_VALUE.match(self.text)
        return None if found is None else (int(found.group(1)), found.group(2), found.group(3))


# The keys a setup grid adds to each of its combinations (`[setup] cards = "grid"`, `sides = "grid"`).
SETUP_CARD = SweptKey("setup.card")
SETUP_SIDE = SweptKey("setup.side")
FOCUS_SEAT = SweptKey("setup.focus_seat")


def sweep_column_name(text: str) -> str:
    """The column of a swept key given as text (a `--by` value): `SweptKey(text).column`."""
    return SweptKey(text).column
