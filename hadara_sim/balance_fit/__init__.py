"""Balance fit: one set of whole-number changes of setup card values that makes every named side fair
against 1/P at every player count at once, found with a surrogate of the simulated win shares (and,
in `cards`, one set of card costs that makes every named card worth its price).

`balance suggest` fixes one side at a time, each judged alone; but the sides share deals and
opponents, so weakening 3B moves every other side's share. The fit treats the set as a whole:

1. **Designed sweep.** Per player count, the current set and `points` design points, each changing
   every changeable value by -1, 0 or +1 step (`balance.STEPS`: 2 coins or 1 track step), balanced
   over the points and shuffled from the seed; all played on the same deals.
2. **Surrogate.** Per player count, a multinomial (conditional) logit on the winner of each game:
   the seat holding side s has strength `alpha_s + sum_t beta_{s,t} term_t(change_s) + gamma_seat`,
   and wins with the softmax of the seats' strengths, so a change to one side moves every side it
   meets. `term_t` are the side's changes (linear); the squares and within-side products of its
   changes, and its *table terms* (its strength's response to the summed changes of a value at the
   other seats: a side's military is worth what the table's is not), join only where the data demand
   them (cluster-robust Wald test, Holm over the candidate terms; `_demanded`). Fitted by maximum likelihood with statsmodels (`GenericLikelihoodModel`, Newton steps) on
   the games grouped by run and sides held (the likelihood of a group is its games', so a fit's work
   stays put as the games grow), standard errors cluster-robust by deal (a deal is played at every
   design point). Before each
   proposal it is anchored to the set last played in full (`Surrogate.anchor`: side offsets that
   reproduce the shares observed there), so the model gives the step and the games the level.
   With `resweep`, each later round is **local**: `resweep` design points (-1, 0 or +1 step of every
   value) are played around the set last played, on its deals, and the surrogate is fitted anew
   (terms chosen anew) to the set itself, the local sweep and every earlier run within one step of
   that set (`driver.local`). A side's own response far from the shipped
   set is then measured where the proposal moves, not extrapolated from the first sweep's slopes.
3. **Proposer.** Over whole-number changes within each value's range and `reach` steps of its
   current value (after the first round, within one step of the set last played: a trust region),
   side by side (the furthest from fair first, repeated until no side moves): the
   change of the side with the fewest changed values, then the smallest worth of change
   (`balance.WORTH`), whose predicted win share lies within `aim` x margin of 1/P at every player
   count, given the other sides' changes, and that leaves no other named side further beyond the aim
   than it was (else the fair change that harms them least); after the first round, starting from the
   set last played, the smallest move from it first. A side no change in range brings there is
   *blocked*.
4. **Confirmation.** The proposal is played on fresh deals (`confirm_games`, per player count if
   asked: a side's share at 2 players needs ~2.7x the games of 4 players' for the same CI); every
   named side at every player count gets the verdict of `balance check` (TOST against 1/P within the
   margin, Holm over all the cells of the table, with `inference.deals_to_decide` hints). The
   confirmation's games join the surrogate's data, the surrogate is fitted again and the next
   proposal played, until the set is
   confirmed, a refit proposes the set just played again (it stops and says why: a side blocked for
   want of a value in range, or cells undecided for want of deals, with the deals that would decide
   them), or the rounds run out.

Every run is a `simulate` run (into `out/runs/...` when given, so an interrupted fit resumes), and
every choice comes from the seed: the same seed gives the same set.

Card costs (and so the purple effects, which are purple cards) have their own fit, `cards.fit_cards`:
the same loop with restricted play as the target (seek and avoid a card level at every player count).
Both play their sweep, rounds and the current set on the best round's deals through `rounds.FitRuns`.
"""

from .cards import CardFit, CardPlan, card_ids, fit_cards
from .cards import check as check_cards
from .cards import check_estimate as check_cards_estimate
from .cards import estimate as card_estimate
from .driver import Fit, Round, estimate, fit, fitting_seconds, simulate_play, verdicts
from .output import (before_after, card_before_after, card_change_table, card_chart, card_command_line, change_table,
                     chart, command_line)
from .plan import (AIM, MAX_CHANGED, POINTS, REACH, SIDES, Change, FitPlan, Play, as_overrides, count, currents,
                   design, read_confirm_games)
from .search import Proposal, change_words, propose, side_options
from .surrogate import Run, Strengths, Surrogate, fit_surrogate, seatings

__all__ = ["AIM", "MAX_CHANGED", "POINTS", "REACH", "SIDES", "CardFit", "CardPlan", "Change", "Fit", "FitPlan", "Play",
           "Proposal", "Round", "Run", "Strengths", "Surrogate", "as_overrides", "before_after", "card_before_after",
           "card_change_table", "card_chart", "card_command_line", "card_estimate", "card_ids", "change_table",
           "change_words", "chart", "check_cards", "check_cards_estimate", "command_line", "count", "currents",
           "design", "estimate", "fit", "fit_cards", "fit_surrogate", "fitting_seconds", "propose",
           "read_confirm_games", "seatings", "side_options", "simulate_play", "verdicts"]
