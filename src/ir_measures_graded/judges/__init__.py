"""Judgments that disagree: two sets of graded qrels side by side — how their labels agree
(:mod:`.grades`), and whether the leaderboards and their significant pairs, measure by measure, hold
when the judge changes (:mod:`.systems`); the figure (:mod:`.figures`); a second judge simulated from the first (:mod:`.simulate`)."""

from ir_measures_graded.judges.grades import LabelAgreement, cohen_kappa, krippendorff_alpha, label_agreement
from ir_measures_graded.judges.simulate import MODELS, simulate_judge
from ir_measures_graded.judges.systems import JudgeAgreement, agree

__all__ = ["MODELS", "JudgeAgreement", "LabelAgreement", "agree", "simulate_judge", "cohen_kappa", "krippendorff_alpha", "label_agreement"]
