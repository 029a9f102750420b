"""Pricing tiers, volume discounts, minimum order values and promotional pricing rules."""

from __future__ import annotations

from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "pricing-tiers-and-volume-discounts.md"

# (category, lowest and highest case count at which its first volume band starts)
CATEGORIES = (
    ("Dairy and eggs", 6, 10),
    ("Meat and poultry", 4, 8),
    ("Bakery", 8, 14),
    ("Dry goods and tins", 10, 20),
    ("Frozen", 6, 12),
    ("Drinks", 10, 24),
    ("Cleaning and disposables", 5, 10),
)


def gbp(amount: float) -> str:
    return f"£{amount:,.0f}" if float(amount).is_integer() else f"£{amount:,.2f}"


def pct(value: float) -> str:
    return f"{value:g}%"


def tiers(draw: Draw) -> tuple[int, int, int, float, float, float]:
    """Bronze, Silver and Gold monthly spend thresholds and their discounts."""
    bronze = draw.pick("pricing.bronze", (1500, 2000, 2500))
    silver = bronze + draw.pick("pricing.silver_step", (2000, 2500, 3000))
    gold = silver + draw.pick("pricing.gold_step", (4000, 5000, 6000))
    bronze_pct = draw.pick("pricing.bronze_pct", (1.5, 2.0, 2.5))
    silver_pct = bronze_pct + draw.pick("pricing.silver_pct_step", (1.5, 2.0))
    gold_pct = silver_pct + draw.pick("pricing.gold_pct_step", (2.0, 2.5, 3.0))
    return bronze, silver, gold, bronze_pct, silver_pct, gold_pct


def render(draw: Draw, facts: Facts) -> str:
    bronze, silver, gold, bronze_pct, silver_pct, gold_pct = tiers(draw)
    mov = draw.pick("pricing.mov", (150, 175, 200, 250))
    contract_mov = mov - draw.pick("pricing.contract_mov_step", (25, 50))
    below_charge = draw.pick("pricing.below_charge", (12.5, 15.0, 17.5, 20.0))
    floor = draw.pick("pricing.floor", (60, 75, 80))
    notice_days = draw.pick("pricing.notice_days", (14, 21, 28))
    counter_hours = draw.pick("pricing.counter_hours", ("07:00 to 15:00", "07:30 to 14:30", "08:00 to 16:00"))
    promo_cap = draw.integer("pricing.promo_cap", 5, 20)
    fixed_months = draw.pick("pricing.fixed_months", (6, 12))
    clearance_lo = draw.pick("pricing.clearance_lo", (25, 30, 35))
    clearance_hi = clearance_lo + draw.pick("pricing.clearance_step", (15, 20, 25))
    promo_weeks = draw.pick("pricing.promo_weeks", (2, 4))
    downgrade_quarters = 2

    volume_rows = []
    for name, lo, hi in CATEGORIES:
        key = "pricing.vol:" + name.lower().replace(" ", "_")
        band1 = draw.integer(key + ":band1", lo, hi)
        band2 = band1 * 2 + draw.integer(key + ":band2_extra", 0, 6, 2)
        pct1 = draw.pick(key + ":pct1", (2.0, 2.5, 3.0))
        pct2 = pct1 + draw.pick(key + ":pct2_step", (1.5, 2.0, 2.5, 3.0))
        volume_rows.append((name, band1, pct1, band2, pct2))

    # Tier review example: three monthly spends around the Silver threshold.
    spends = [
        silver + draw.integer("pricing.review_spend:1", -900, 300, 10),
        silver + draw.integer("pricing.review_spend:2", -600, 600, 10),
        silver + draw.integer("pricing.review_spend:3", -300, 900, 10),
    ]
    average = round(sum(spends) / 3)
    review_tier = "Silver" if average >= silver else "Bronze"

    # Worked example: a Silver account ordering dairy above the second band.
    dairy = volume_rows[0]
    example_cases = dairy[3] + 2
    example_list = draw.pick("pricing.example_price", (21.60, 24.80, 26.40, 28.00))
    after_tier = round(example_list * (1 - silver_pct / 100), 2)
    after_volume = round(after_tier * (1 - dairy[4] / 100), 2)
    example_total = after_volume * example_cases

    parts: list[str] = []
    parts.append("# Pricing Tiers and Volume Discounts")
    parts.append(
        "Document reference HP-COM-PRC. Applies from 5 January 2026 to all trading accounts with "
        f"{facts.company}. Prices in this document exclude VAT."
    )
    parts.append(
        "This document explains how the price you pay is worked out: the list price for each product, the "
        "tier discount that depends on how much your business spends with us, the volume discounts that "
        "apply when you order a category in quantity, and the rules for promotions, minimum orders and "
        "delivery charges. Your own prices are always shown on the Trade Portal and on your invoices, and "
        "these are the prices that count if anything here seems to disagree with them."
    )

    parts.append("## How your price is built")
    parts.append(
        "Every product has a list price, published weekly in the price file on the Trade Portal. Your tier "
        "discount is taken off the list price first. Any volume discount for the category is then taken off "
        "the tier price. Promotional prices work differently, as explained further down: a promotional line "
        "has a single fixed price and no other discount is added to it."
    )
    parts.append(
        f"List prices can change when our own costs change. We give at least {notice_days} days' notice of a "
        "list-price increase by email and on the portal, except for fresh fish, fresh meat and fresh "
        "produce, which are priced daily from the market and can change without notice. Price decreases "
        "take effect straight away."
    )

    parts.append("## Pricing tiers")
    parts.append(
        "Your tier is set by your average monthly spend over the previous calendar quarter, excluding VAT, "
        "delivery charges and returns. Tiers are reviewed on the first working day of January, April, July "
        "and October, and a new tier takes effect on the first delivery after the review."
    )
    tier_table = [
        "| Tier | Average monthly spend | Discount off list | Named account manager | Below-minimum charge |",
        "| --- | --- | --- | --- | --- |",
        f"| Standard | Below {gbp(bronze)} | None | No | {gbp(below_charge)} |",
        f"| Bronze | {gbp(bronze)} to {gbp(silver - 1)} | {pct(bronze_pct)} | No | {gbp(below_charge)} |",
        f"| Silver | {gbp(silver)} to {gbp(gold - 1)} | {pct(silver_pct)} | Yes | {gbp(below_charge)} |",
        f"| Gold | {gbp(gold)} and above | {pct(gold_pct)} | Yes | Waived |",
    ]
    parts.append("\n".join(tier_table))
    parts.append(
        f"In short, Bronze starts at {gbp(bronze)} of average monthly spend, Silver at {gbp(silver)} and "
        f"Gold at {gbp(gold)}. New accounts start on the Standard tier. A new account that expects to spend "
        "above a tier threshold can ask to start on that tier; we agree this for an opening period of three "
        "months and then review it against actual spend in the normal way."
    )
    parts.append(
        "Moving up happens at the first review at which your spend qualifies. Moving down is slower: an "
        f"account only drops a tier after {downgrade_quarters} consecutive quarters below its threshold, so "
        "a quiet quarter in winter does not cost you your discount. Accounts that group several sites under "
        "one head office, such as a small restaurant group or a multi-academy trust, are tiered on the "
        "combined spend of all their sites."
    )
    parts.append(
        "Gold accounts also benefit outside pricing. They pay no below-minimum delivery charge, they "
        "receive a reduced restocking fee on change-of-mind returns under the Returns and Credit Notes "
        "Policy, and their named account manager reviews their price file with them each quarter. Silver "
        "accounts also have a named account manager; Standard and Bronze accounts are looked after by the "
        "telesales team at their depot."
    )

    parts.append(
        f"For example, a café that spent {gbp(spends[0])} in January, {gbp(spends[1])} in February and "
        f"{gbp(spends[2])} in March 2026 had an average monthly spend of {gbp(average)} for the quarter, so "
        f"at the April review it was placed on the {review_tier} tier. Had its average fallen below that "
        "tier's threshold in the next two quarters, it would have moved down a tier at the October review."
    )

    parts.append("## Volume discounts by category")
    parts.append(
        "Volume discounts reward larger orders within a category. They are worked out per order, not per "
        "month, on the number of whole cases of that category on a single delivery. Mixed products within a "
        "category count together: four cases of milk and four of cream are eight cases of dairy. The "
        "discount applies to every case of the category on that delivery, not only to the cases above the "
        "threshold."
    )
    vol_table = ["| Category | Band 1 from | Band 1 discount | Band 2 from | Band 2 discount |"]
    vol_table.append("| --- | --- | --- | --- | --- |")
    vol_table += [
        f"| {n} | {b1} cases | {pct(p1)} | {b2} cases | {pct(p2)} |" for n, b1, p1, b2, p2 in volume_rows
    ]
    parts.append("\n".join(vol_table))
    parts.append(
        "Fresh fish, fresh meat and fresh produce carry no volume discount, because they are bought and "
        "priced daily. Frozen fish and frozen meat are in the Frozen category and do earn volume discounts. "
        "Products on promotion and short-dated clearance lines do not count towards the volume bands and do "
        "not receive a volume discount."
    )
    parts.append(
        f"Worked example: a Silver account orders {example_cases} cases of dairy products, each with a list "
        f"price of {gbp(example_list)}. The Silver discount of {pct(silver_pct)} brings each case to "
        f"£{after_tier:.2f}. Because {example_cases} cases is above the band 2 threshold for dairy, a "
        f"further {pct(dairy[4])} comes off, giving £{after_volume:.2f} a case and £{example_total:,.2f} for "
        "the order before VAT."
    )

    parts.append("## Minimum order value and delivery charges")
    parts.append(
        f"The minimum order value for a delivery is {gbp(mov)}, excluding VAT. Schools, academies and care "
        f"homes on a contracted delivery day have a lower minimum of {gbp(contract_mov)}, because their "
        "deliveries are planned into fixed routes; an extra delivery on another day has the normal minimum. "
        "The minimum is checked against the goods total after tier and volume discounts, so a large "
        "discount can take an order just below it."
    )
    parts.append(
        "Orders below the minimum are still delivered, but a below-minimum delivery charge of "
        f"{gbp(below_charge)} is added to the invoice. Gold accounts never pay this charge, whatever the "
        f"size of the order. We do not accept orders worth less than {gbp(floor)} for delivery at all."
    )
    parts.append(
        "Orders too small to deliver can be collected from the trade counter at any depot, with no charge. "
        f"Trade counters are open from {counter_hours} on weekdays. Collected orders receive the same tier "
        "and volume discounts as delivered ones and count towards your tier spend in the same way."
    )
    parts.append(
        "Extra deliveries on a day your zone is not normally served, second deliveries, deliveries to a "
        "second address and timed deliveries carry their own charges, which are set out in the Delivery "
        "Schedules and Cut-offs document. Those charges are added whether or not the order meets the "
        "minimum."
    )

    parts.append("## Promotions")
    parts.append(
        f"Our Halcyon Deals promotions run in cycles of {promo_weeks} weeks, each starting on a Monday. The "
        "promotional price is shown on the portal and in the Deals leaflet sent to every account at the "
        "start of the cycle. Promotional prices are the same for every account, whatever its tier."
    )
    parts.append(
        "A promotional price replaces your usual price for that line; it is not added to it. Tier discounts "
        "and volume discounts are not applied to a product while it is on promotion. If your usual tier and "
        "volume price for a product is lower than the promotional price, which can happen for Gold accounts "
        "on some lines, the invoice automatically uses the lower of the two prices."
    )
    parts.append(
        f"Each account may buy up to {promo_cap} cases of any one promotional line per delivery week. Orders "
        "above the cap are accepted, but the extra cases are charged at your usual price. Promotions are "
        "offered while stocks last; if a promotional line runs out, we do not substitute a different "
        "product at the promotional price."
    )

    parts.append("## Clearance and short-dated stock")
    parts.append(
        "Short-dated ambient and frozen stock is offered in the Last Chance section of the portal at "
        f"{clearance_lo}% to {clearance_hi}% off list price. Clearance prices are final: no tier or volume "
        "discount is added, clearance lines do not count towards your tier spend, and clearance goods "
        "cannot be returned for change-of-mind reasons. Chilled products are never sold as clearance."
    )

    parts.append("## Fixed-price agreements")
    parts.append(
        "Schools, academies, local authorities and care-home groups can agree fixed prices on a basket of "
        f"up to 150 core lines for {fixed_months} months at a time. The agreed prices do not change during "
        "the agreement, even if list prices rise, and list-price decreases are passed on at the next "
        "quarterly review. Products outside the basket are charged at the normal tier price. Fixed-price "
        "agreements are arranged through your account manager and need at least the Bronze tier of spend."
    )
    parts.append(
        "Fresh fish, fresh meat and fresh produce cannot be included in a fixed-price basket. Where a "
        "school needs a predictable cost for fresh produce, we can offer a monthly capped price, which is "
        "reviewed on the first Monday of each month."
    )

    parts.append("## Your price file")
    parts.append(
        "Your price file lists every product you have bought in the last thirteen weeks, with your current "
        "price after tier discount, the list price, the pack size and the price per unit. It is refreshed "
        "every Monday morning and can be downloaded from the portal as a spreadsheet. The file also flags "
        "lines whose list price will rise in the coming weeks, with the date of the change, so you can "
        "reprice a menu in good time."
    )
    parts.append(
        "If a price on an invoice does not match your price file for the delivery date, the invoice is "
        "wrong and will be corrected. Check the date first: a price file downloaded on a Monday shows the "
        "prices for that week, and a delivery the following week may already be on a new price."
    )

    parts.append("## Questions about pricing")
    parts.append(
        "Questions about your price file go to your account manager or to the telesales team at your depot "
        f"on {facts.phone}. Invoice queries about prices charged are handled by credit control under the "
        "dispute process in the Payment Terms and Late Fees document."
    )
    return "\n\n".join(parts) + "\n"
