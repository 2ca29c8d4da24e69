"""The organiser's view: many runs on one set of graded judgments (track organisers, shared tasks,
offline leaderboards). Each function takes an :class:`~ir_measures_graded.experiments.Experiment` and
returns one result object with tidy tables and text, Markdown, LaTeX and TSV/CSV/JSON-lines views:

- :func:`leaderboard`: runs sorted by a measure, each measure's value and rank, significance groups as a
  compact letter display;
- :func:`agreement`: Kendall's τ and τ_AP between the measures' rankings, and the significant swaps;
- :func:`topics`: per topic the best, median and worst run, per run its difference from the median;
- :func:`pool`: the judged documents each run (or group) alone contributed, and leave-one-out
  re-evaluation (pool reusability);
- :func:`bounds`: per run and measure, judged@k and the values with the unjudged documents at the
  floor and at the topic's top grade.

Before any judgment, :func:`build_pool` (:mod:`ir_measures_graded.pooling`) builds the pool to judge from runs alone (no
experiment): depth-k, RBP, RRF, move-to-front or a MaxMean bandit, under a budget, as a :class:`JudgingPool`;
:func:`simulate_pools` asks, on existing qrels, what each strategy would have found under each budget and how
faithful the leaderboard on its judgments is to the full qrels'.
"""

from ir_measures_graded.organiser.agreement import Agreement, agreement
from ir_measures_graded.organiser.leaderboard import Leaderboard, leaderboard
from ir_measures_graded.organiser.letters import compact_letters
from ir_measures_graded.organiser.pool import Bounds, Pool, bounds, pool
from ir_measures_graded.organiser.simulation import Simulation, simulate_pools
from ir_measures_graded.organiser.topics import Topics, topics
from ir_measures_graded.pooling import JudgingPool, build_pool

__all__ = ["leaderboard", "Leaderboard", "agreement", "Agreement", "topics", "Topics", "compact_letters",
           "pool", "Pool", "bounds", "Bounds",
           "build_pool", "JudgingPool", "simulate_pools", "Simulation"]
