"""Supplier onboarding guide: approval, certification, audits, insurance, terms, labelling, goods-in."""

from __future__ import annotations

from cairn_action.sample.documents.cold_chain_and_temperature_handling import (
    figures as cold_chain_figures,
)
from cairn_action.sample.documents.delivery_schedules_and_cutoffs import unwrap
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "supplier-onboarding.md"


def render(draw: Draw, facts: Facts) -> str:
    cold = cold_chain_figures(draw)
    grade = draw.pick("suppliers.brcgs_grade", ("A", "B"))
    high_risk_grade = "AA" if grade == "A" else "A"
    salsa_turnover = draw.pick("suppliers.salsa_turnover", (1, 2, 3))
    approval_weeks = draw.pick("suppliers.approval_weeks", (6, 8, 10))
    medium_months = draw.pick("suppliers.medium_audit_months", (18, 24))
    critical_days = draw.pick("suppliers.nc_critical_days", (5, 7))
    major_days = draw.pick("suppliers.nc_major_days", (21, 28))
    minor_days = draw.pick("suppliers.nc_minor_days", (42, 56))
    product_liability = draw.pick("suppliers.product_liability", (5, 10))
    public_liability = draw.pick("suppliers.public_liability", (2, 3, 4))
    recall_cover = draw.pick("suppliers.recall_cover", ("£250,000", "£500,000", "£1 million"))
    standard_days = draw.pick("suppliers.standard_days", (45, 60))
    small_days = draw.pick("suppliers.small_days", (21, 30))
    small_turnover = draw.pick("suppliers.small_turnover", ("£500,000", "£1 million"))
    discount_pct = draw.pick("suppliers.discount_pct", ("1.5", "2"))
    chilled_life = draw.pick("suppliers.chilled_life_pct", (65, 70, 75))
    frozen_months = draw.pick("suppliers.frozen_months", (6, 9))
    ambient_months = draw.pick("suppliers.ambient_months", (4, 5))
    booking_hours = draw.pick("suppliers.booking_hours", (24, 48))
    goods_in = draw.pick("suppliers.goods_in", (("04:00", "13:00"), ("05:00", "14:00"), ("06:00", "15:00")))
    late_minutes = draw.pick("suppliers.late_minutes", (30, 45))
    otif = draw.pick("suppliers.otif", ("97", "98", "98.5"))
    trial_deliveries = draw.pick("suppliers.trial_deliveries", (3, 5))
    supplier_ext = draw.integer("suppliers.ext", 500, 539)
    questionnaire = f"SQ-{draw.integer('suppliers.sq', 2, 6)}"
    spec_form = f"PS-{draw.integer('suppliers.ps', 10, 19)}"
    allergen_form = f"AD-{draw.integer('suppliers.ad', 2, 5)}"
    goods_in_rows = "\n".join(
        f"| {group} | {limit} |"
        for group, limit in (
            ("Chilled, general", f"{cold.chilled_load_max}°C or below"),
            ("Fresh meat and poultry", f"{cold.meat_load_max}°C or below"),
            ("Fresh fish and shellfish", "2°C or below, on ice"),
            ("Frozen", "-18°C or colder"),
            ("Ice cream and frozen desserts", "-20°C or colder"),
        )
    )
    return unwrap(f"""
# Supplier Onboarding Guide

*For food and drink producers, growers, importers and distributors who want to supply
{facts.company}. Owner: {facts.supplier_manager}, Supplier Manager.*

Thank you for your interest in supplying {facts.short_name}. We buy chilled, frozen and ambient food for
restaurants, cafés, schools and care homes, and many of the people who eat it are young, elderly or
unwell. That is why our approval process looks closely at food safety, allergen control and traceability
before it looks at price. This guide explains each step from first contact to your first delivery, the
certificates and insurance we need, how we audit, how and when we pay, and what we expect of your labels
and your deliveries into our depots.

New suppliers are approved in about {approval_weeks} weeks from receipt of a complete questionnaire. The
most common cause of delay is a missing or expired certificate, so please send everything in the
checklist at the end of this guide together.

## How approval works

1. **First contact.** Our buying team confirms that your products fill a gap in our range and that you
can supply the volumes and delivery frequency our depots need.
2. **Supplier questionnaire.** You complete questionnaire {questionnaire} on the supplier portal,
covering your company, sites, food safety system, allergen controls, traceability and ethical trading.
3. **Certificates and insurance.** You upload your food safety certificate, your latest audit report and
evidence of the insurance set out below.
4. **Risk assessment.** Our technical team rates you as high, medium or low risk, depending on what you
make and how. Ready-to-eat chilled foods, raw meat, fish and anything sold as free-from are always high
risk.
5. **Site audit.** High-risk suppliers, and any supplier without a recognised certificate, are audited
on site by our technical team before approval.
6. **Product specifications.** You submit a specification on form {spec_form} and an allergen
declaration on form {allergen_form} for each product, with label artwork and samples where we ask for
them.
7. **Commercial agreement.** Prices, payment terms, lead times and delivery days are agreed and signed.
8. **Trial deliveries.** Your first {trial_deliveries} deliveries are fully inspected at goods-in: every
line is checked against its specification, probed where temperature-controlled, and its labels checked.

You are approved once all eight steps are complete and the Supplier Manager, {facts.supplier_manager},
has signed the approval. Approval covers named products from named sites; a new product or a new site
needs its own specification and, if the risk rating changes, a new assessment.

## Certifications we require

Every food supplier must hold a current certificate to a GFSI-recognised standard. For most suppliers
that means the BRCGS Global Standard for Food Safety at grade {grade} or above. High-risk suppliers, as
defined in step 4, must hold grade {high_risk_grade} or above. Certificates awarded after an unannounced
audit are welcome, and we treat an unannounced grade as one grade higher than its announced equivalent
when we set your audit frequency.

Smaller producers with an annual turnover under £{salsa_turnover} million may hold SALSA certification
instead of BRCGS, provided they are not high risk. Producers too small for either scheme can still be
approved if they pass our own full site audit, which we repeat every year. Depending on what you supply,
we also need:

- Red Tractor assurance, or an equivalent farm assurance scheme, for British meat, poultry, dairy and
fresh produce;
- Marine Stewardship Council chain of custody certification for any fish sold to us as MSC-certified;
- organic certification from an approved control body for any product labelled organic;
- a current Food Hygiene Rating of 5 for any producer registered with a local authority rather than
certified to a GFSI standard.

If your grade falls below the level required, or your certificate lapses, you must tell us within two
working days. We may suspend orders until a re-audit restores the grade.

## Audits and non-conformances

We audit suppliers according to their risk rating. High-risk suppliers are audited on site every 12
months, medium-risk suppliers every {medium_months} months, and low-risk suppliers receive a desk review
of their certificate and questionnaire every 36 months. We may also audit at any time, with or without
notice, after a complaint, a product recall or a failed delivery inspection.

Findings are graded as critical, major or minor, and each must be closed out with evidence of the
corrective action within a set time:

- **Critical non-conformances**, which put food safety or legality at immediate risk, within
{critical_days} days; we suspend orders of the products affected until they are closed;
- **Major non-conformances**, a significant failure to meet a requirement, within {major_days} days;
- **Minor non-conformances**, where a requirement is only partly met, within {minor_days} days.

A supplier that fails to close a critical finding in time, or receives two critical findings in a year,
is referred to the Head of Food Safety, {facts.head_of_food_safety}, who decides whether approval
continues.

## Insurance

Before your first delivery you must send us certificates showing the following cover, and send renewals
each year before the old certificate expires:

| Insurance | Minimum cover |
|---|---|
| Product liability | £{product_liability} million for any one claim |
| Public liability | £{public_liability} million for any one claim |
| Employers' liability | £5 million, the legal minimum |
| Product recall (high-risk suppliers only) | {recall_cover} |

Product liability cover must extend to products sold on by us to caterers and consumed by the public.
If your cover falls below these levels or is cancelled, you must tell us straight away.

## Payment terms

Our standard payment terms are {standard_days} days from the end of the month in which we receive a
valid invoice. Small suppliers, meaning those with an annual turnover under {small_turnover}, are paid
{small_days} days from the date of a valid invoice, because we know that long terms hurt small
businesses most. Any supplier may choose to take {discount_pct}% early-payment discount in return for
payment within 10 days of a valid invoice.

A valid invoice quotes our purchase order number, matches the goods we received and signed for at
goods-in, and is sent as a PDF to accounts.payable@{facts.email_domain}. Invoices that do not quote a
purchase order number are returned unpaid. We pay by BACS and send a remittance advice by email on the
day of payment. Credit notes for short, rejected or returned goods are deducted from the next payment
run.

## Product specifications and shelf life

Each product needs a specification on form {spec_form}, covering the full ingredient list, nutrition,
allergens, storage conditions, shelf life, pack sizes and the case and pallet configuration. Tell us
about any change to a specification before the changed product is delivered; never change a recipe,
supplier of a key ingredient or pack size without our agreement.

Products must reach our depots with enough life left for us to sell them and for our customers to use
them. Chilled products must arrive with at least {chilled_life}% of their total shelf life remaining.
Frozen products must have at least {frozen_months} months remaining, and ambient products at least
{ambient_months} months, unless a shorter life has been agreed for a specific product in writing.
Products with less life than this are rejected at goods-in.

## Labelling and allergen declarations

Every consumer unit must be labelled in line with the Food Information Regulations 2014, with the name
of the food, the ingredients in descending order of weight, the 14 regulated allergens emphasised in the
ingredients list, the net quantity, the date mark, storage conditions, your name and address, and the
country of origin where it is required. Products that our customers will sell as prepacked for direct
sale must carry full ingredient labelling with allergens emphasised.

Outer cases must show the product name, your product code and ours, the batch or lot code, the use-by
or best-before date, the storage temperature and a GS1 barcode, printed on at least two sides so that
they can be read when stacked on a pallet. A pallet label with the purchase order number, the batch
codes it contains and the total number of cases is also required.

Your allergen declaration on form {allergen_form} must list, for each of the 14 allergens, whether the
product contains it as an ingredient, whether it is handled on the same production line or site, and
what controls prevent cross-contact. A "may contain" statement is acceptable only where your risk
assessment shows a real risk that cannot be controlled; we do not accept blanket precautionary labels.
The frequency with which declarations must be re-confirmed, and the notice we need before a recipe
changes, are set out in our Allergen Information and Policy document, which forms part of your supply
agreement.

## Delivering to our depots

Deliveries into our depots are made by booked slot only. Book through the supplier portal at least
{booking_hours} hours ahead. Goods-in at each depot is open from {goods_in[0]} to {goods_in[1]}, Monday
to Saturday. A vehicle arriving more than {late_minutes} minutes after its slot may be turned away, or
unloaded only when a later slot is free.

Temperature-controlled goods are probed at goods-in against the limits below, which are tighter than
the limits our own drivers use at customers' premises because the food still has our whole
distribution journey ahead of it. Frozen goods must be at -18°C or colder when they reach goods-in,
with no allowance for the brief rise in temperature that the law permits during distribution.

| Product group | Accepted at goods-in at |
|---|---|
{goods_in_rows}

Your vehicle's own temperature record for the journey must be available on request. A delivery that
fails these limits is rejected in full and the cost of disposal is charged back to you.

## Performance monitoring

We measure every supplier's on-time, in-full delivery rate, the quality of what arrives and the accuracy
of invoices. Our target is {otif}% of deliveries on time and in full. Scorecards are shared each
quarter, and a supplier below target for two consecutive quarters is asked for an improvement plan,
reviewed with the Supplier Manager.

## Contact

Your first point of contact throughout onboarding is the Supplier Manager, {facts.supplier_manager},
on {facts.phone}, extension {supplier_ext}. Questions about food safety certificates and audits can also
go to the Quality Manager, {facts.quality_manager}.

## Checklist

Send these with your questionnaire:

- current food safety certificate and the full report of your latest audit;
- insurance certificates for product, public and employers' liability, and recall cover if you are high
risk;
- a specification on form {spec_form} and allergen declaration on form {allergen_form} for each product;
- label artwork for each product and its outer case;
- your bank details on headed paper, signed by a director.
""")
