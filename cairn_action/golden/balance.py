"""The set's balance against the curation guide: difficulty mix, adversarial and unanswerable shares,
and which claims its size supports (the guide's "Sample size guidance" table).

Only scored cases count (drafts and deprecated cases are not part of the exam).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from cairn_action.golden.models import GoldenCase

TARGET_MIX = {"easy": 3, "medium": 5, "hard": 2}
"""The guide: keep easy:medium:hard about 3:5:2."""
ADVERSARIAL_SHARE = (0.05, 0.10)
ADVERSARIAL_TAG = "adversarial"
# (claim, minimum n) from the guide's table; the paired floor is its 50-100 range.
PAIRED_MIN, PAIRED_FLOOR = 50, 100
ABSOLUTE_MIN = 200
SUBGROUP_MIN = 50
PUBLISHED_MIN = 500


def balance_lines(cases: Sequence[GoldenCase]) -> list[str]:
    """The printed balance section of `cairn golden check`."""
    n = len(cases)
    if n == 0:
        return []
    lines = ["\nbalance (curation guide):"]
    levels = Counter(c.difficulty for c in cases if c.difficulty)
    rated = sum(levels.values())
    if rated:
        total = sum(TARGET_MIX.values())
        mix = ":".join(f"{levels[d] / rated * total:.1f}" for d in TARGET_MIX)
        lines.append(
            f"  difficulty easy:medium:hard = {mix} over {rated} rated cases (target 3:5:2)"
            + ("" if rated == n else f"; {n - rated} without a difficulty")
        )
        for level, want in TARGET_MIX.items():
            share, target = levels[level] / rated, want / total
            if abs(share - target) > 0.1:
                lines.append(f"    {level}: {share:.0%} of rated cases, the guide keeps about {target:.0%}")
    else:
        lines.append("  difficulty: no case gives one (easy, medium, hard); the guide keeps 3:5:2")
    adversarial = sum(1 for c in cases if ADVERSARIAL_TAG in c.tags)
    low, high = ADVERSARIAL_SHARE
    verdict = "within" if low <= adversarial / n <= high else "outside"
    lines.append(
        f"  adversarial (tag {ADVERSARIAL_TAG}): {adversarial} of {n} ({adversarial / n:.0%}), {verdict} "
        f"the guide's {low:.0%}-{high:.0%}"
    )
    unanswerable = sum(1 for c in cases if not c.answerable)
    lines.append(f"  unanswerable: {unanswerable} of {n} ({unanswerable / n:.0%}); include about a quarter")
    lines += [f"  {line}" for line in size_claims(cases)]
    return lines


def size_claims(cases: Sequence[GoldenCase]) -> list[str]:
    """What the set's size supports, claim by claim, with the guide's minimum n."""
    n = len(cases)
    if n >= PAIRED_FLOOR:
        paired = f"yes (n = {n} >= {PAIRED_FLOOR})"
    elif n >= PAIRED_MIN:
        paired = f"only for large or continuous effects (n = {n}; {PAIRED_MIN}-{PAIRED_FLOOR} needed)"
    else:
        paired = f"no (n = {n} < {PAIRED_MIN})"
    absolute = "yes" if n >= ABSOLUTE_MIN else f"no (needs {ABSOLUTE_MIN}+)"
    tags = Counter(tag for c in cases for tag in dict.fromkeys(c.tags))
    big = sorted(tag for tag, k in tags.items() if k >= SUBGROUP_MIN)
    per_tag = ", ".join(big) if big else f"none (each tag needs {SUBGROUP_MIN}+ cases)"
    published = "yes" if n >= PUBLISHED_MIN else f"no (needs {PUBLISHED_MIN}+, stratified)"
    return [
        f"supports a paired regression claim: {paired}",
        f"supports an absolute claim with a CI (82% ± 3%): {absolute}",
        f"supports a per-tag claim for: {per_tag}",
        f"supports a published result: {published}",
    ]
