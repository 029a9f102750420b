"""The superseded 2024 returns policy: a distractor with different figures for the same cases."""

from __future__ import annotations

from cairn_action.sample.documents.account_opening import account_managers, fresh_names
from cairn_action.sample.documents.customer_service_hours_and_slas import team_leaders
from cairn_action.sample.documents.returns_and_credits_policy import (
    AUTO_APPROVE_OPTIONS,
    RESTOCK_PCT_OPTIONS,
    UNOPENED_DAY_OPTIONS,
    figures,
    gbp,
    long_date,
)
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "archive/returns-policy-2024.md"


def render(draw: Draw, facts: Facts) -> str:
    current = figures(draw)
    # Every figure that the current policy also states is drawn so that it differs from the current one.
    unopened = draw.pick(
        "returns_2024.unopened_days", [d for d in UNOPENED_DAY_OPTIONS if d != current.unopened_days]
    )
    restock = draw.pick(
        "returns_2024.restock_pct", [p for p in RESTOCK_PCT_OPTIONS if p != current.restock_pct]
    )
    auto_approve = draw.pick(
        "returns_2024.auto_approve", [a for a in AUTO_APPROVE_OPTIONS if a != current.auto_approve]
    )
    damaged_hours = 72 if current.damaged_hours == 48 else 48
    chilled_hours = current.chilled_hours + draw.pick("returns_2024.chilled_extra", (2, 6))
    credit_days = current.credit_days + draw.integer("returns_2024.credit_extra", 3, 8)
    min_value = current.min_return_value + draw.pick("returns_2024.min_value_extra", (10, 20, 25))
    restock_min = current.restock_min + draw.pick("returns_2024.restock_min_extra", (2.5, 5.0))
    wrong_days = current.wrong_days + draw.integer("returns_2024.wrong_extra", 1, 3)
    taken = (*account_managers(draw, facts), *team_leaders(draw, facts))
    supervisor = fresh_names(draw, "returns_2024.supervisor", facts, 1, exclude=taken)[0]
    desk_open = draw.pick("returns_2024.desk_open", ("08:00", "08:30", "09:00"))
    desk_close = draw.pick("returns_2024.desk_close", ("16:00", "16:30", "17:00"))
    example_fee = max(round(113.00 * restock / 100, 2), restock_min)
    issued_day = draw.pick("returns_2024.issued", ("2 April 2024", "1 May 2024", "3 June 2024"))

    parts: list[str] = []
    parts.append("# Returns Policy (2024 edition)")
    parts.append(
        f"> **SUPERSEDED.** This policy was replaced on {long_date(current.effective)} by the current "
        "Returns and Credit Notes Policy (returns-and-credits-policy.md). It is kept in the archive for "
        "reference only and must not be used to answer customers. Claims on deliveries made on or after "
        "that date follow the current policy."
    )
    parts.append(
        f"Issued {issued_day}. Reviewed without change in January 2025. Prepared by {supervisor}, Returns "
        f"Desk Supervisor, for {facts.company}."
    )
    parts.append(
        "This document sets out the rules under which customers could return goods and receive credit "
        "during 2024 and 2025. It was written when claims were still handled by a dedicated returns desk at "
        "head office, before claims moved to the customer service team and the Trade Portal."
    )

    parts.append("## Summary of time limits (2024)")
    table = [
        "| Type of return | Time limit (2024 policy) | Restocking charge |",
        "| --- | --- | --- |",
        "| Items missing from delivery | End of the next working day | None |",
        f"| Damage found after delivery | {damaged_hours} hours | None |",
        f"| Incorrect product supplied | {wrong_days} working days | None |",
        f"| Unwanted ambient stock, unopened | {unopened} days | {restock}% |",
        f"| Chilled products | {chilled_hours} hours | None |",
        "| Frozen products | Same as chilled | None |",
    ]
    parts.append("\n".join(table))

    parts.append("## Missing items")
    parts.append(
        "Under the 2024 policy, items missing from a delivery had to be reported by the end of the next "
        "working day after delivery. Saturday deliveries counted as delivered on the following Monday for "
        "this purpose. Missing items were always credited rather than re-sent unless the customer asked for "
        "them on the next delivery."
    )

    parts.append("## Damage")
    parts.append(
        "Damage that could not be seen at the time of delivery had to be reported to the returns desk "
        f"within {damaged_hours} hours. One clear photograph of the damaged item was enough for a damage "
        "claim under this edition. The returns desk could ask for the goods to be collected before a credit "
        "was raised, and often did so for claims over £50."
    )

    parts.append("## Incorrect products")
    parts.append(
        f"An incorrect product had to be reported within {wrong_days} working days and left unopened for "
        "collection. Collections were made on the customer's next delivery day. A substitution of a similar "
        "product of equal or greater value did not count as an incorrect product under the 2024 edition, "
        "even if the customer had not been told about it in advance."
    )

    parts.append("## Unwanted stock")
    parts.append(
        f"Customers could return unwanted ambient stock within {unopened} days of delivery, provided it was "
        f"unopened and in resaleable condition, and the return was worth at least {gbp(min_value)}. A "
        f"restocking charge of {restock}% applied, with a minimum charge of {gbp(restock_min)}. The 2024 "
        "edition made no reduction in the restocking charge for any pricing tier."
    )

    parts.append("## Chilled and frozen products")
    parts.append(
        "Chilled and frozen products with a quality or temperature problem had to be reported within "
        f"{chilled_hours} hours of delivery, and frozen products were given the same window as chilled. A "
        "probe reading was requested but was not compulsory. Customers were asked to keep the product in "
        "their own chiller or freezer until the returns desk had decided the claim."
    )

    parts.append("## Making a claim (2024)")
    parts.append(
        "Claims were made by email to returns@halcyon-provisions.example or by phoning the returns desk, "
        "which was open on weekdays only. That mailbox is no longer monitored. Each claim received a "
        "returns authorisation number beginning RA, which had to be written on any goods handed back to a "
        "driver."
    )

    parts.append("## Credits (2024)")
    parts.append(
        f"Approved claims were credited within {credit_days} working days. The returns desk supervisor could "
        f"approve claims of up to {gbp(auto_approve)}; anything above that was referred to the finance "
        "office. Credit notes were applied to the next invoice raised on the account rather than to the "
        "oldest unpaid invoice."
    )

    parts.append("## Exclusions (2024)")
    parts.append(
        "The 2024 edition excluded special-order products, clearance stock and opened goods, in the same "
        "way as the current policy. It did not make separate provision for fresh produce, which was handled "
        "as damage, or for recalled products, which were credited through the returns desk like any other "
        "return."
    )

    parts.append("## Goods handed back to drivers (2024)")
    parts.append(
        "Under the 2024 edition, customers could hand returned goods back to the driver on their next "
        "delivery, including chilled and frozen products, provided each case was labelled with its RA "
        "number. Drivers signed for the number of cases taken back and the goods were checked at the depot. "
        f"The returns desk was staffed from {desk_open} to {desk_close}, Monday to Friday, and goods handed "
        "back on a Saturday were not checked until the Monday."
    )

    parts.append("## Worked example (2024)")
    parts.append(
        "Under this edition, a customer returning five unwanted cases of a dry product invoiced at £22.60 a "
        f"case returned goods worth £113.00. The restocking charge at {restock}% was £{example_fee:.2f}, so "
        f"the credit was £{113.00 - example_fee:.2f}. The credit appeared on the next invoice raised on the "
        "account."
    )

    parts.append("## Transition to the current policy")
    parts.append(
        f"Claims that were already open on {long_date(current.effective)} were completed under this edition, "
        "including its time limits and its restocking charge. Returns authorisation numbers beginning RA "
        "are still honoured for those claims. Every claim opened from that date receives a claim reference "
        "from the Trade Portal instead, whatever the date of the delivery it concerns, and credit notes "
        "raised under this edition remain valid on the account in the normal way."
    )

    parts.append("## Why this policy was replaced")
    parts.append(
        "The 2024 edition was replaced because claims moved to the Trade Portal and the customer service "
        "team, because the returns desk at head office closed, and because a review of chilled and frozen "
        "claims found that keeping suspect product in the customer's own storage made it impossible to tell "
        "where a temperature problem had started. The current policy changes several of the time limits and "
        "requires more evidence for damage and temperature claims. Always use the current policy."
    )
    return "\n\n".join(parts) + "\n"
