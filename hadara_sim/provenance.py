"""Where a result comes from: the component set (name, digest, how many values are estimates),
the scenario, seed and game count, and the policies with the parameters they played. Reports and
charts print it in their footers so that a number is never separated from what produced it."""

from __future__ import annotations

from .components import CARD_VALUES, COLONY_VALUES, SETUP_VALUES, ComponentError, ComponentSet
from .component_files import default_components_path, load_components

BOARD_VALUES = {"sell": 3, "medals": 6, "bonus_tiles": 1}  # values per board.toml section
STATUE_VALUES = ("requirement", "points", "bonus")


def estimated_values(c: ComponentSet) -> tuple[int, int]:
    """(estimated, total) value fields of a component set: every field not marked exact."""
    total = estimated = 0
    groups = [([card], CARD_VALUES if card.effect else CARD_VALUES[:-1]) for card in c.cards]
    groups += [(c.colonies, COLONY_VALUES), (c.setup_cards.values(), SETUP_VALUES), (c.statues, STATUE_VALUES)]
    for items, fields in groups:
        for item in items:
            total += len(fields)
            estimated += sum(f not in item.exact for f in fields)
    for section, count in BOARD_VALUES.items():
        total += count
        estimated += 0 if c.board_exact.get(section) else count
    return estimated, total


def component_set(c: ComponentSet) -> dict:
    """Name, digest and estimate count of a loaded component set."""
    estimated, total = estimated_values(c)
    shipped = c.path in (None, "") or str(c.path) == str(default_components_path())
    return {"name": "shipped reconstruction" if shipped else str(c.path), "digest": c.digest,
            "estimated": estimated, "values": total}


def of_components(record: dict | None) -> dict:
    """The component set a run recorded (metadata `components`: path and digest), with its estimate
    count when the set can still be loaded and has the same digest."""
    record = record or {}
    path = record.get("path")
    found = {"name": "shipped reconstruction" if not path else str(path), "digest": record.get("digest")}
    try:
        c = load_components(path)
    except (ComponentError, OSError):
        return found
    if found["digest"] and c.digest != found["digest"]:
        return found
    return {**component_set(c), "name": found["name"]}


def of_run(meta: dict | None) -> dict:
    """Provenance of a results directory from its metadata.json (empty dict: nothing known)."""
    meta = meta or {}
    scenario = meta.get("scenario") or {}
    fields = meta.get("identity_fields") or {}
    prov = {"scenario": scenario.get("name"), "scenario_file": scenario.get("path"), "seed": meta.get("seed"),
            "games": meta.get("games"), "package_version": meta.get("package_version")}
    if meta.get("components") is not None:
        prov["components"] = of_components(meta["components"])
    if fields.get("policy_settings"):
        prov["policies"] = fields["policy_settings"]
        prov["policy_params"] = given_params(meta)
    return {k: v for k, v in prov.items() if v is not None}


def given_params(meta: dict | None) -> dict:
    """label -> the parameters the scenario set for that policy, as the run recorded them."""
    given = {}
    for combo in (meta or {}).get("combinations") or []:
        for entry in (combo.get("config") or {}).get("policies") or []:
            if isinstance(entry, dict) and entry.get("label") and entry.get("params"):
                given.setdefault(entry["label"], entry["params"])
    return given


def components_text(comp: dict) -> str:
    """'shipped reconstruction (4c7128380e2b20ca; 310 of 420 values estimated)'."""
    if not comp:
        return ""
    est = (f"; {comp['estimated']} of {comp['values']} values estimated" if "estimated" in comp
           else "; estimates unknown (set not found)")
    return f"components: {comp['name']} ({comp.get('digest') or 'no digest'}{est})"


def policies_text(settings: dict, given: dict | None = None) -> str:
    """'balanced, military (coin_end=0.5, ...)': labels, with the parameters the scenario set
    (`given`, as the run recorded them). Read from the record only: a report never imports or
    builds a policy (a results directory is data), so it describes a run as it was played, not
    with today's defaults."""
    parts = []
    for label in settings:
        params = (given or {}).get(label) or {}
        if params and "(" not in label:
            label += "(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
        parts.append(label)
    return "policies: " + ", ".join(parts)


def field_line(info: dict) -> str:
    """The line every verdict of a report carries: the policy field it holds for and the share of
    estimated component values it rests on."""
    return verdict_scope(info.get("policies") or [], (info.get("provenance") or {}).get("components") or {})


def verdict_scope(policies, comp: dict) -> str:
    """'these verdicts hold for the policy field played (balanced) and rest on a component set of
    which 1,213 of 1,287 values (94%) are estimates' (`comp` as `component_set` gives it)."""
    field = " + ".join(policies) if policies else "the policies of this run"
    if "estimated" in comp:
        rests = (f"rest on a component set of which {comp['estimated']:,} of {comp['values']:,} values "
                 f"({100 * comp['estimated'] / comp['values']:.0f}%) are estimates")
    else:
        rests = "rest on a component set whose share of estimated values is unknown"
    return f"these verdicts hold for the policy field played ({field}) and {rests}"


def text(prov: dict) -> str:
    """One line for a footer: scenario, seed, games, components, policies."""
    if not prov:
        return ""
    parts = []
    if prov.get("scenario"):
        parts.append(f"scenario '{prov['scenario']}'")
    if prov.get("seed") is not None:
        parts.append(f"seed {prov['seed']}")
    if prov.get("games"):
        parts.append(f"{prov['games']:,} games per combination")
    if prov.get("components"):
        parts.append(components_text(prov["components"]))
    if prov.get("policies"):
        parts.append(policies_text(prov["policies"], prov.get("policy_params")))
    if prov.get("package_version"):
        parts.append(f"hadara-sim {prov['package_version']}")
    return "; ".join(parts)


def combination_labels(meta: dict | None) -> dict[int, str]:
    """combo number -> what the combination is ("balanced vs military", "grants = sell_bonus, players = 3")."""
    labels = {}
    for combo in (meta or {}).get("combinations") or []:
        names = [p.get("label") or p.get("policy") for p in (combo.get("config") or {}).get("policies") or []]
        parts = []
        if combo.get("arrangement") is not None and names:
            parts.append(" vs ".join(names[i] for i in combo["arrangement"]))
        parts += [f"{k} = {v}" for k, v in (combo.get("sweep") or {}).items()]
        if combo.get("setup_card") is not None:
            parts.append(f"card {combo['setup_card']}" + (f"{combo['setup_side']}" if combo.get("setup_side") else ""))
        labels[int(combo["index"])] = ", ".join(str(p) for p in parts) or f"combination {combo['index']}"
    return labels


def with_combination_labels(df, meta: dict | None):
    """`df` with a `combination` column naming each row's combination (for --by combo)."""
    import polars as pl

    labels = combination_labels(meta)
    if "combo" not in df.columns or not labels or "combination" in df.columns:
        return df
    return df.with_columns(combination=pl.col("combo").replace_strict(labels, default=None,
                                                                       return_dtype=pl.String))
