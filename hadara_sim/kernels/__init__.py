"""The built-in bots' decisions as one compiled function, `decide`: the planner styles, the expert and greedy.

`decide` (decide.py) values every option of one decision kind for each row (a game and its acting
seat) and takes the best legal one. The Python methods of `Planner` and `Greedy` call it through
`choose`, and the compiled engine calls it directly, so the decision logic exists once. Parts:
layout (codes, the flat params by name, the view), basics, valuation (the planner's worth of a
position and a card), planner and lookahead (foresight's picks), expert (foresight with a learned
correction of its card decisions), greedy.

Decisions are bit for bit those of the numpy code this replaced: every sum is written in the order
numpy computed it. einsum summed 4-term dot products in two lanes, `(a0*b0 + a2*b2) + (a1*b1 + a3*b3)`
(`_dot_lanes`); the planner's and greedy's `track values @ mean_back.T` was an OpenBLAS matmul, which
for more than one row fuses each step (`fma(a3, b3, fma(a2, b2, fma(a1, b1, a0*b0)))`, `_dot_fma`).
For a single row numpy summed in two lanes instead; `decide` always fuses, so that a game's decisions
never depend on how many other games share its batch (and both engines sum alike).
"""
