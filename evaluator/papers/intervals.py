"""The level of a confidence interval written as a number: "95% CI", "95% bootstrap CI", "with 95% and 99%
confidence intervals", "0.884(95" where a stored copy stops. numbers.py reads none of them as a result."""

from __future__ import annotations

import re


def interval_level(written: str, before: str, after: str) -> bool:
    """Whether the number `written`, with the text `before` and `after` it, is an interval's level."""
    # the level of an interval: "95% CI", "95% confidence", "overlapping 95% intervals", "the 95% range of ranks"
    # (seed document 002, which no rule had been built against), "95% bootstrap CI" (smartwatch_ecg_*_outline.md)
    if re.match(
        r"^[ %]{0,2}(?:(?:bootstrap(?:ped)?|exact|Wilson|Clopper-Pearson|bias-corrected) )?"
        r"(?:CI|confidence|credible|(?:prediction |uncertainty )?(?:intervals?|range|bounds?))",
        after,
        re.I,
    ):
        return True
    # and of several: "with 95% and 99% confidence intervals" (cdle_five_llms_unknown_option_*_abstract.md)
    if written in ("90", "95", "99") and re.match(r"^ ?%? ?(?:,|and|or) \d{2} ?% (?:CI|confidence|credible)", after):
        return True
    # an interval's level where the text stops: "AUROCs of 0.771 (95" (icu_readmission_iread_*_abstract.md, a
    # stored copy cut there), "0.884(95" (ppc_geriatric_dnn_*.md)
    return written in ("90", "95", "99") and before.endswith("(") and not after.strip(" %")
