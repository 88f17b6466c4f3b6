"""Restricted play (Jaffe et al., "Evaluating competitive game balance with restricted play", AIIDE
2012): a built-in policy with `avoid = [cards]` never buys those cards, and with `seek = [cards]` buys
one of them whenever it is offered and affordable; everything else it decides as it would.

The restriction acts on the legal options of a draw or a pick before the policy's own choice: the
purchase of an avoided card is taken away (the card is discarded or sold instead), and when a sought
card can be bought, only its purchase is left. Both engines restrict through `restrict_rows` (the
compiled engine in `ask`, the Python interface in `choose`), on a copy of the legal options.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hadara_sim.actions import BUY, draw_option, pick_option
from hadara_sim.invocation import program
from hadara_sim.params import Param

from .layout import DRAW, PICK

FREE, AVOID, SEEK = 0, 1, 2  # a card's entry in a restriction mask
RESTRICTED_KINDS = ("draw", "pick")
# Every built-in declares the two in these words (the card ids are checked against the component set
# when the policy first meets it: `restriction_mask`).
RESTRICTION = {
    "avoid": Param(help="restricted play: card ids the policy never buys (drawn or picked, they are discarded "
                        "or sold)"),
    "seek": Param(help="restricted play: card ids the policy buys whenever one is offered and affordable"),
}


def restriction_mask(settings: dict, components, name: str) -> np.ndarray:
    """(C,) int8: AVOID or SEEK for the cards a policy's `avoid` and `seek` name, FREE for the others;
    ValueError naming the policy for an id the component set lacks or a card in both lists."""
    mask = np.zeros(components.n_cards, np.int8)
    for key, code in (("avoid", AVOID), ("seek", SEEK)):
        for card_id in settings.get(key, ()):
            if card_id not in components.card_index:
                raise ValueError(f"policy '{name}' parameter {key}: no card '{card_id}' in the component set "
                                 f"(`{program()} components show` lists the ids)")
            index = components.card_index[card_id]
            if mask[index] not in (FREE, code):
                raise ValueError(f"policy '{name}': {card_id} is in both avoid and seek; name it in one")
            mask[index] = code
    return mask


def policy_mask(policy, components) -> np.ndarray | None:
    """A policy's restriction mask for a component set (kept on the policy), None when it restricts
    nothing."""
    settings = getattr(policy, "settings", {})
    if not (settings.get("avoid") or settings.get("seek")):
        return None
    masks = policy.__dict__.setdefault("_restriction", {})
    if components.digest not in masks:
        masks[components.digest] = restriction_mask(settings, components, getattr(policy, "name", "policy"))
    return masks[components.digest]


def restricted(policy, d) -> np.ndarray:
    """The legal options of decision `d` as `policy`'s restriction leaves them (a copy; `d.legal` itself
    when the policy restricts nothing or the kind buys no card)."""
    mask = policy_mask(policy, d.view.components)
    if mask is None or d.kind not in RESTRICTED_KINDS:
        return d.legal
    legal = np.array(d.legal, np.bool_, order="C")
    n = len(legal)
    if d.kind == "draw":
        hand = np.ascontiguousarray(d.view.hand, np.int64)
        piles, sizes = np.zeros((1, 5, 1), np.int16), np.zeros((1, 5), np.int8)
    else:
        hand = np.zeros((n, 2), np.int64)
        piles = np.ascontiguousarray(d.view.piles, np.int16)
        sizes = np.ascontiguousarray(d.view.pile_size, np.int8)
    kind = DRAW if d.kind == "draw" else PICK
    restrict_rows(kind, piles, sizes, np.arange(n), np.arange(n), legal, hand, mask)
    return legal


@njit(cache=True)
def restrict_rows(kind, piles, pile_size, rows, g, legal, hand, mask):
    """Restrict row i of `legal` for each i of `rows` (game g[i]) in place: avoided cards' purchases
    are dropped; when a sought card's purchase is legal, only sought cards' purchases are left."""
    if kind != DRAW and kind != PICK:
        return
    for i in rows:
        sought = False
        for k in range(2 if kind == DRAW else 5):
            j, card = _purchase(kind, piles, pile_size, g[i], hand, i, k)
            if card >= 0 and legal[i, j]:
                if mask[card] == AVOID:
                    legal[i, j] = False
                elif mask[card] == SEEK:
                    sought = True
        if sought:
            for j in range(legal.shape[1]):
                keep = False
                for k in range(2 if kind == DRAW else 5):
                    option, card = _purchase(kind, piles, pile_size, g[i], hand, i, k)
                    keep |= option == j and card >= 0 and mask[card] == SEEK
                legal[i, j] = legal[i, j] and keep


@njit(cache=True)
def _purchase(kind, piles, pile_size, gi, hand, i, k):
    """(option, card) of the k-th purchase a decision offers: buying the drawn card kept when card k is
    discarded, or the top card of discard pile k (card -1 for an empty pile)."""
    if kind == DRAW:
        return draw_option(k, BUY), np.int64(hand[i, 1 - k])
    size = pile_size[gi, k]
    return pick_option(k, BUY), (np.int64(piles[gi, k, size - 1]) if size > 0 else np.int64(-1))
