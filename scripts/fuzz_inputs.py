"""Fuzz campaign for issue 14: many generated scenario files and component sets through
`hadara-sim simulate`, and damaged results directories through `report winrate` and a resuming
`simulate`, counting how many misbehave (traceback, exit code other than 0/2, a file written
outside its place, a file deleted that the program did not write, exit 2 without a message).
Issue 34 added the human seat's answers (`play`), side-trial cache files (policies/sides.py),
crafted card columns (`report cards`), two-key curves (`report curve`) and `simulate --dry-run`
into every kind of --out, each with its own property (tests/input_strategies.py); and the library's
public calls as a notebook makes them, with arguments of the wrong kind (`--api`). Then a user's policy class
that misbehaves outside its answers (`--policy-classes`: attributes that raise or are of the wrong kind, prints
under --format json, a kernel() of its own), and paths too long for the file system among the options.

    .venv/bin/python scripts/fuzz_inputs.py --scenarios 2000 --typed 1000 --components 1000 --results 600 \
        --cli 1000 --human 300 --cache 300 --cards 300 --curves 200 --dry-runs 280 --api 500 \
        --policy-answers 200 --policy-classes 200 [--seed 1]

Command lines: every command with any subset of its options, each from a pool of valid and
malformed values (tests/input_strategies.py OPTION_VALUES; typed scenarios draw every policy
parameter at and beyond its declared limits).

Prints the count per verdict and the first input of every kind of misbehaviour; exits 1 if any.
The same property runs with a few examples in CI (tests/test_fuzz_inputs.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from input_strategies import (  # noqa: E402
    api_calls, cache_files, card_edits, check_api, check_cache_file, check_card_columns, check_cli,
    check_component_set, check_curve, check_dry_run, check_human, check_policy_answer, check_policy_class, check_results,
    check_simulate, cli_invocations, component_edits, curve_requests, dry_runs, garbage_lines, human_answers,
    policy_answers, policy_classes, results_edits, scenario_dicts, toml_text, typed_scenario_dicts,
)


def phases() -> list[tuple[str, object, object, object]]:
    """(name, strategy, check(tmp, case) -> (verdict, output), how to show a case)."""
    def report_or_resume(tmp, case):
        edits, resume = case
        return check_results(tmp, edits, ["simulate"] if resume else ["report", "winrate"])

    return [
        ("scenario files", st.tuples(scenario_dicts(), garbage_lines),
         lambda tmp, case: check_simulate(tmp, toml_text(*case)), lambda case: toml_text(*case)),
        ("scenario files of the right types", typed_scenario_dicts(),
         lambda tmp, case: check_simulate(tmp, toml_text(case)), toml_text),
        ("component sets", component_edits(), check_component_set, repr),
        ("damaged results directories (report or resume)", st.tuples(results_edits(), st.booleans()),
         report_or_resume, repr),
        ("command lines", cli_invocations(), check_cli, " ".join),
        ("human seat answers (play)", human_answers, check_human, repr),
        ("side-trial cache files", cache_files, check_cache_file, repr),
        ("crafted card columns (report cards)", card_edits, check_card_columns, repr),
        ("two-key curves (report curve)", curve_requests, check_curve, repr),
        ("simulate --dry-run and a run into every kind of --out", dry_runs, check_dry_run, repr),
        ("library calls with arguments of the wrong kind", api_calls, check_api, repr),
        ("a user's policy answering wrongly (play)", policy_answers, check_policy_answer, repr),
        ("a user's policy class misbehaving outside its answers", policy_classes, check_policy_class, repr),
    ]


def campaign(counts: list[int], random_seed: int) -> tuple[Counter, dict]:
    """Run each phase for its count of examples; the verdicts and the first case of each failure."""
    verdicts: Counter = Counter()
    first: dict[str, str] = {}
    for count, (name, strategy, check, shown) in zip(counts, phases()):
        if not count:
            continue
        before = Counter(verdicts)

        @seed(random_seed)
        @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(case=strategy)
        def one(case):
            with tempfile.TemporaryDirectory() as tmp:
                verdict, output = check(Path(tmp), case)
            verdicts[verdict] += 1
            if not verdict.startswith("ok") and verdict not in first:
                first[verdict] = f"{shown(case)}\n--- output ---\n{output[-3000:]}"

        one()
        print(f"{name}: {dict(verdicts - before)}", flush=True)
    return verdicts, first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=2000)
    parser.add_argument("--typed", type=int, default=1000)
    parser.add_argument("--components", type=int, default=1000)
    parser.add_argument("--results", type=int, default=600)
    parser.add_argument("--cli", type=int, default=1000)
    parser.add_argument("--human", type=int, default=300)
    parser.add_argument("--cache", type=int, default=300)
    parser.add_argument("--cards", type=int, default=300)
    parser.add_argument("--curves", type=int, default=200)
    parser.add_argument("--dry-runs", type=int, default=280)  # each distinct case once (input_strategies.dry_runs)
    parser.add_argument("--api", type=int, default=500)
    parser.add_argument("--policy-answers", type=int, default=200)
    parser.add_argument("--policy-classes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.perf_counter()
    verdicts, first = campaign([args.scenarios, args.typed, args.components, args.results, args.cli, args.human,
                                args.cache, args.cards, args.curves, args.dry_runs, args.api, args.policy_answers,
                                args.policy_classes],
                               args.seed)
    total = sum(verdicts.values())
    bad = sum(n for v, n in verdicts.items() if not v.startswith("ok"))
    print(f"{total} inputs tried in {time.perf_counter() - start:.0f} s (seed {args.seed}); {bad} misbehaved")
    for verdict, n in verdicts.most_common():
        print(f"  {n:6d}  {verdict}")
    for verdict, example in first.items():
        print(f"\n=== first '{verdict}' ===\n{example}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
