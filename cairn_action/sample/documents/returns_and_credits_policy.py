"""The current returns and credit-note policy (the archived 2024 policy reads its figures to differ)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "returns-and-credits-policy.md"

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
EFFECTIVE_DATES = (
    datetime.date(2026, 2, 2),
    datetime.date(2026, 3, 2),
    datetime.date(2026, 4, 6),
    datetime.date(2026, 5, 5),
    datetime.date(2026, 6, 1),
)
UNOPENED_DAY_OPTIONS = (14, 21, 28, 30)
RESTOCK_PCT_OPTIONS = (10, 12, 15, 20, 25)
AUTO_APPROVE_OPTIONS = (100, 150, 200, 250)


def long_date(day: datetime.date) -> str:
    return f"{WEEKDAYS[day.weekday()]} {day.day} {MONTHS[day.month - 1]} {day.year}"


def gbp(amount: float) -> str:
    return f"£{amount:,.0f}" if float(amount).is_integer() else f"£{amount:,.2f}"


@dataclass(frozen=True)
class ReturnsFigures:
    effective: datetime.date
    version: str
    short_hours: int
    damaged_hours: int
    wrong_days: int
    unopened_days: int
    chilled_hours: int
    frozen_hours: int
    produce_time: str
    photos_min: int
    restock_pct: int
    restock_min: float
    gold_restock_pct: int
    min_return_value: int
    credit_days: int
    auto_approve: int
    controller_limit: int
    repeat_claims: int
    credit_validity_months: int
    refund_days: int
    collection_days: int


def figures(draw: Draw) -> ReturnsFigures:
    """The current policy's figures; the archived 2024 policy calls this to make its own differ."""
    restock_pct = draw.pick("returns.restock_pct", RESTOCK_PCT_OPTIONS)
    chilled_hours = draw.pick("returns.chilled_hours", (2, 3, 4, 6))
    return ReturnsFigures(
        effective=draw.pick("returns.effective", EFFECTIVE_DATES),
        version=draw.pick("returns.version", ("4.0", "4.1", "5.0", "5.2")),
        short_hours=draw.pick("returns.short_hours", (12, 24)),
        damaged_hours=draw.pick("returns.damaged_hours", (48, 72)),
        wrong_days=draw.integer("returns.wrong_days", 2, 5),
        unopened_days=draw.pick("returns.unopened_days", UNOPENED_DAY_OPTIONS),
        chilled_hours=chilled_hours,
        frozen_hours=chilled_hours + draw.pick("returns.frozen_extra", (2, 4, 6)),
        produce_time=draw.pick("returns.produce_time", ("11:00", "12:00", "14:00")),
        photos_min=draw.integer("returns.photos_min", 2, 4),
        restock_pct=restock_pct,
        restock_min=draw.pick("returns.restock_min", (5.0, 7.5, 10.0, 12.5)),
        gold_restock_pct=restock_pct // 2,
        min_return_value=draw.pick("returns.min_return_value", (25, 30, 40, 50)),
        credit_days=draw.integer("returns.credit_days", 3, 7),
        auto_approve=draw.pick("returns.auto_approve", AUTO_APPROVE_OPTIONS),
        controller_limit=draw.pick("returns.controller_limit", (500, 750, 1000, 1500)),
        repeat_claims=draw.integer("returns.repeat_claims", 4, 8),
        credit_validity_months=draw.pick("returns.credit_validity", (6, 12)),
        refund_days=draw.integer("returns.refund_days", 10, 20),
        collection_days=draw.integer("returns.collection_days", 2, 5),
    )


def render(draw: Draw, facts: Facts) -> str:
    f = figures(draw)
    portal_tab = draw.pick("returns.portal_tab", ("Claims & Credits", "Returns", "My Claims"))
    ref_prefix = draw.pick("returns.ref_prefix", ("CR", "RC", "CN"))
    example_ref = f"{ref_prefix}-2026-{draw.integer('returns.example_ref', 10000, 99999)}"
    example_sku = draw.pick("returns.example_sku", ("HP-DRY-0218", "HP-DRY-0307", "HP-DRY-0415"))
    parts: list[str] = []
    parts.append("# Returns and Credit Notes Policy")
    parts.append(
        f"Document reference HP-COM-RET, version {f.version}. Effective from {long_date(f.effective)}. "
        f"Owner: {facts.customer_service_manager}, Customer Service Manager. Applies to every trading "
        f"account held with {facts.company}, whether on credit terms or cash on delivery."
    )
    parts.append(
        f"This policy explains what you can return to {facts.short_name}, how quickly you need to tell us, "
        "what evidence we need and how and when you will be credited. It replaces the returns policy issued "
        "in 2024, which is kept in our archive for reference only. Where the two differ, this policy "
        f"applies to every delivery made on or after {long_date(f.effective)}. Claims on earlier deliveries "
        "that were already open on that date are finished under the old rules."
    )
    parts.append(
        "Most problems are small and are sorted out on the day: a case that arrived crushed, a line that "
        "was left off the van, a box of the wrong size. The time limits below are not there to catch anyone "
        "out. Chilled and frozen food cannot safely be looked at a week later, and the sooner a short or "
        "damaged line is reported, the sooner we can send a replacement on the next run."
    )

    parts.append("## At a glance")
    parts.append(
        "The table below summarises the reporting windows. The sections after it explain each case in full, "
        "including the exceptions. Windows run from the time recorded on the signed delivery note, not from "
        "when the goods were unpacked."
    )
    rows = [
        ("Short delivery (items missing)", f"{f.short_hours} hours", "Signed delivery note", "No"),
        ("Damaged on arrival (ambient)", f"{f.damaged_hours} hours", f"{f.photos_min} photos", "No"),
        ("Wrong item delivered", f"{f.wrong_days} working days", "Photo of label", "No"),
        ("Unopened ambient goods", f"{f.unopened_days} days", "Original packaging", f"Yes, {f.restock_pct}%"),
        ("Chilled goods", f"{f.chilled_hours} hours", "Photos and probe reading", "No"),
        ("Frozen goods", f"{f.frozen_hours} hours", "Photos and probe reading", "No"),
        ("Fresh produce quality", f"{f.produce_time} on delivery day", "Photos", "No"),
    ]
    table = ["| Case | Report within | Evidence | Restocking fee |", "| --- | --- | --- | --- |"]
    table += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    parts.append("\n".join(table))

    parts.append("## Short deliveries")
    parts.append(
        "A short delivery is one where a line on your delivery note was not on the van, or fewer cases "
        "arrived than were invoiced. Please count cases against the delivery note while the driver is on "
        "site and ask the driver to mark any shortfall on both copies before you sign. A shortfall the "
        "driver has marked is credited automatically the same evening; you do not need to raise a claim."
    )
    parts.append(
        f"If you find a shortfall after the driver has left, report it within {f.short_hours} hours of "
        "delivery. We check the picking record and the van's loading scan, and if the missing cases are "
        "confirmed we either credit them or send them on your next scheduled delivery, whichever you "
        "prefer. Short deliveries never attract a restocking fee, and the minimum return value in the "
        "unopened-goods section does not apply to them."
    )

    parts.append("## Damaged goods")
    parts.append(
        "Goods damaged in transit include crushed or torn outer cases, dented tins, leaking bottles and "
        "split sacks. Where you can see the damage on arrival, refuse the damaged cases at the door and ask "
        "the driver to record the refusal on the delivery note. Refused cases go back on the van and are "
        "credited without a claim."
    )
    parts.append(
        "Concealed damage, found only when an outer case is opened, must be reported within "
        f"{f.damaged_hours} hours of delivery. Keep the damaged goods and the packaging until the claim is "
        "closed: we may ask the driver to collect them, and we may ask for more photos. A claim for "
        f"concealed damage needs at least {f.photos_min} photographs, one showing the whole outer case with "
        "its label and one showing the damage close up. A dented tin is only treated as damaged if the dent "
        "is on a seam or the tin is swollen; a dent on the flat side of a tin is cosmetic and the tin is "
        "safe to use."
    )
    parts.append(
        "Do not use any product whose packaging is pierced, swollen, leaking or has a broken seal, even if "
        "the product looks fine. Photograph it, set it aside away from other food, and report it. If you "
        "think a damaged product has already been served, tell us at once by phone rather than through the "
        "portal, because that is handled as a food safety matter and not as a return."
    )

    parts.append("## Wrong items")
    parts.append(
        "A wrong item is a product you did not order delivered in place of one you did: a different pack "
        "size, a different brand, or a different product with a similar name. Substitutions we told you "
        "about before delivery, by text, email or a note on the delivery paperwork, are not wrong items, "
        "but you may refuse a substitution at the door and it will be credited."
    )
    parts.append(
        f"Report a wrong item within {f.wrong_days} working days of delivery. Send a photo of the product "
        "label showing the product code so we can see what was picked. Leave the wrong item unopened; we "
        f"collect it within {f.collection_days} working days, normally on your next scheduled delivery, and "
        "credit it in full once it is back with us. If the item you ordered is needed urgently, say so when "
        "you report the error and we will try to send it on the next run from your depot."
    )

    parts.append("## Unopened ambient goods")
    parts.append(
        "Ambient goods are products stored at room temperature: dry goods, tins, jars, sauces, oils, "
        "cleaning products, disposables and soft drinks. If you ordered too much or changed your menu, we "
        "will take back ambient goods that are unopened, undamaged and in a saleable condition, with at "
        f"least three months of shelf life left. The return must be requested within {f.unopened_days} days "
        f"of the delivery date and must be worth at least {gbp(f.min_return_value)} at invoice price."
    )
    parts.append(
        f"Change-of-mind returns carry a restocking fee of {f.restock_pct}% of the invoice value of the "
        f"returned goods, with a minimum fee of {gbp(f.restock_min)} per return. The fee covers collection, "
        "inspection and putting the goods back into stock. Accounts on the Gold pricing tier pay a reduced "
        f"restocking fee of {f.gold_restock_pct}% on change-of-mind returns. The fee is deducted from the "
        "credit note; it is never invoiced separately."
    )
    parts.append(
        f"For example, returning six cases of {example_sku} invoiced at £18.40 a case is a return worth "
        f"£110.40. At {f.restock_pct}% the fee would be "
        f"£{max(110.40 * f.restock_pct / 100, f.restock_min):.2f}, so the credit note would be for "
        f"£{110.40 - max(110.40 * f.restock_pct / 100, f.restock_min):.2f}. Ambient goods that were damaged, "
        "short or wrong are never treated as change-of-mind returns, and no restocking fee applies to them."
    )

    parts.append("## Chilled and frozen goods")
    parts.append(
        "Chilled and frozen goods are treated more strictly than ambient goods, because once they have left "
        "our cold chain we cannot be sure how they were kept. We do not accept change-of-mind returns of "
        "any chilled or frozen product, opened or unopened. We only credit chilled and frozen goods that "
        "were damaged, short, wrong, past their use-by date on arrival, or delivered outside the "
        "temperature limits set out in our Cold Chain and Temperature Handling procedure."
    )
    parts.append(
        "The best time to deal with a temperature problem is at the door. Probe chilled and frozen "
        "deliveries as you receive them. If a product is outside the limits, refuse it and ask the driver "
        "to record the refusal and your probe reading on the delivery note. Refused goods are credited in "
        "full with no claim needed. Do not accept a product you believe is too warm because the driver is "
        "in a hurry."
    )
    parts.append(
        "A temperature claim on chilled goods after the delivery note has been signed must be made within "
        f"{f.chilled_hours} hours of delivery. For frozen goods, which hold their temperature longer, the "
        f"window is {f.frozen_hours} hours. Your claim must include the probe reading, the time it was "
        "taken, the product's batch or lot code, and a photograph of the product with the probe in place. "
        "We cannot accept a temperature claim once the product has been moved into your own chiller or "
        "freezer and taken out again, because we can no longer tell where the temperature was lost."
    )
    parts.append(
        "Never hand chilled or frozen goods back to a driver on a later delivery. Our drivers will not load "
        "returned chilled or frozen stock onto a refrigerated van alongside food for other customers. Once "
        "your claim is accepted we will ask you to dispose of the product and send a photo of it marked as "
        "waste, and we credit it on that evidence."
    )

    parts.append("## Fresh produce")
    parts.append(
        "Fruit, vegetables, salad and herbs vary from day to day. If produce arrives bruised, wilted, "
        f"mouldy or under-ripe for its stated use, report it by {f.produce_time} on the day of delivery with "
        "photos. We replace or credit produce quality complaints without collecting the goods. Produce "
        "cannot be returned for change-of-mind reasons."
    )

    parts.append("## Recalled and withdrawn products")
    parts.append(
        "Products affected by a product recall or a product withdrawal are not returns under this policy. "
        "They are handled under our Food Safety Recall Procedure, which tells you what to do with the stock "
        "and how it will be credited. The time limits in this policy do not apply to recalled products, no "
        "restocking fee is ever charged on them, and they do not count towards the repeat-claim review "
        "described below. If you are unsure whether a product you hold is part of a recall, call us and "
        "choose the food safety option rather than raising a return."
    )

    parts.append("## How to make a claim")
    parts.append(
        f"The quickest way to claim is the Halcyon Trade Portal. Open the {portal_tab} tab, choose the "
        "delivery, tick the affected lines and upload your photos. The portal checks the time limits for "
        f"you and gives you a claim reference straight away, in the form {example_ref}. Quote that reference "
        "in any call or email about the claim."
    )
    parts.append(
        f"You can also claim by phone on {facts.phone}, choosing option 2 for deliveries and claims, during "
        "the customer service opening hours. The adviser will open the claim while you are on the line and "
        f"send you a link for uploading photos. Claims by email to {facts.support_email} are accepted, but "
        "they take longer because an adviser has to key them in; please put your account number and the "
        "delivery date in the subject line."
    )
    parts.append(
        "Photos should be sharp and taken in good light. Show the product label, the batch or lot code and "
        "the best-before or use-by date where the claim depends on them. Photos taken on the day of "
        "delivery carry more weight than photos taken later. A claim is not complete until the evidence for "
        "its case has been received, and the time limit is met only by a complete claim."
    )

    parts.append("## Credit notes")
    parts.append(
        f"Claims worth up to {gbp(f.auto_approve)} are approved by the customer service adviser who handles "
        "them, usually on the same day. Larger claims are reviewed by a team leader. Claims worth more than "
        f"{gbp(f.controller_limit)}, and any claim on an account that is on stop, also need the approval of "
        "the credit controller before a credit note is issued."
    )
    parts.append(
        f"Once a claim is approved we raise the credit note within {f.credit_days} working days. It is "
        "emailed to your accounts contact and appears on your next monthly statement. Credit notes are "
        "applied against your oldest unpaid invoice unless you ask us to apply them to a particular "
        f"invoice. An unused credit balance stays on your account for {f.credit_validity_months} months."
    )
    parts.append(
        "We do not pay credits out as cash while an account is open and trading. If your account is closed "
        f"with a credit balance, we refund the balance to the bank account on file within {f.refund_days} "
        "working days of the closure, or to the card used if the account was cash on delivery. Please do "
        "not deduct a claim from an invoice payment before the credit note has been issued: a short payment "
        "shows on your account as overdue until the credit note is raised."
    )

    parts.append("## What we cannot accept")
    parts.append("We cannot accept returns or credit claims for:")
    parts.append(
        "\n".join(
            [
                "- products cut, prepared or ordered specially for you, including bespoke butchery, "
                "special-order lines and products we do not normally stock;",
                "- goods sold at a clearance price as short-dated stock;",
                "- opened goods, unless the product itself was faulty;",
                "- goods that have not been stored according to the instructions on the label;",
                "- goods past their best-before date at the time of the claim;",
                "- chilled or frozen goods returned for change-of-mind reasons;",
                "- claims reported after the time limits in this policy, except where we agree otherwise in "
                "writing.",
            ]
        )
    )
    parts.append(
        "Where a product was faulty, for example foreign matter found inside a sealed pack or a sauce that "
        "has separated before its best-before date, keep the product and its packaging and call us. Faulty "
        "products are investigated by our quality team and credited in full if the fault is confirmed."
    )

    parts.append("## Repeat claims")
    parts.append(
        f"An account that makes more than {f.repeat_claims} claims in any 90-day period is reviewed by the "
        "customer service team leader for its depot. The review is not a penalty. It usually finds a "
        "practical cause, such as a delivery point where cases are left in the sun or a standing order that "
        "no longer matches the menu, and we agree changes with you. Claims for our own picking errors and "
        "recalled products are left out of the count."
    )

    parts.append("## Questions about this policy")
    parts.append(
        f"Questions about this policy go to the customer service team on {facts.phone} or "
        f"{facts.support_email}. If you are not happy with how a claim was handled, you can use our "
        "complaints procedure, which is described in the Customer Service Hours and Service Levels "
        f"document. This policy is reviewed every year by {facts.customer_service_manager}."
    )
    return "\n\n".join(parts) + "\n"
