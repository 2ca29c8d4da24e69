"""Judgments that disagree: two sets of graded qrels side by side — how their labels agree
(:mod:`.grades`), and whether the leaderboards and their significant pairs, measure by measure, hold
when the judge changes (:mod:`.systems`)."""

from ir_measures_graded.judges.grades import LabelAgreement, cohen_kappa, krippendorff_alpha, label_agreement

__all__ = ["LabelAgreement", "cohen_kappa", "krippendorff_alpha", "label_agreement"]
