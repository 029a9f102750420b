"""How to open a trading account: documents, credit checks, references, approval times, managers."""

from __future__ import annotations

from cairn_action.sample.draw import FIRST_NAMES, SURNAMES, Draw
from cairn_action.sample.facts import Facts

PATH = "account-opening.md"


def gbp(amount: float) -> str:
    return f"£{amount:,.0f}" if float(amount).is_integer() else f"£{amount:,.2f}"


def fresh_names(draw: Draw, key: str, facts: Facts, count: int, exclude: tuple[str, ...] = ()) -> list[str]:
    """`count` names sharing neither first name nor surname with the named staff or with `exclude`."""
    taken = (
        facts.head_of_food_safety, facts.quality_manager, facts.credit_controller, facts.transport_manager,
        facts.customer_service_manager, facts.managing_director, facts.data_protection_officer,
        facts.supplier_manager, *facts.founders, *exclude,
    )  # fmt: skip
    firsts = [n for n in draw.shuffled(key + ":first", FIRST_NAMES) if n not in {t.split()[0] for t in taken}]
    lasts = [n for n in draw.shuffled(key + ":last", SURNAMES) if n not in {t.split()[-1] for t in taken}]
    return [f"{first} {last}" for first, last in zip(firsts, lasts, strict=False)][:count]


def account_managers(draw: Draw, facts: Facts) -> list[str]:
    """One account manager per depot."""
    return fresh_names(draw, "account_opening.managers", facts, len(facts.depots))


def render(draw: Draw, facts: Facts) -> str:
    managers = account_managers(draw, facts)
    exts = draw.shuffled("account_opening.exts", list(range(301, 390)))[: len(managers)]
    office_days = draw.shuffled(
        "account_opening.office_days", ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays")
    )
    cod_days = draw.integer("account_opening.cod_days", 1, 2)
    credit_days = draw.integer("account_opening.credit_days", 4, 8)
    public_days = credit_days + draw.integer("account_opening.public_extra", 3, 7)
    refs_n = draw.pick("account_opening.refs_n", (2, 3))
    ref_months = draw.pick("account_opening.ref_months", (6, 12))
    ref_wait = draw.integer("account_opening.ref_wait", 5, 10)
    history_months = draw.pick("account_opening.history_months", (12, 18, 24))
    start_limit = draw.pick("account_opening.start_limit", (1000, 1500, 2000, 2500))
    max_start_limit = start_limit * draw.pick("account_opening.max_start_mult", (3, 4, 5))
    pg_years = draw.pick("account_opening.pg_years", (2, 3))
    pg_limit = draw.pick("account_opening.pg_limit", (3000, 5000, 7500))
    cod_months = draw.pick("account_opening.cod_months", (3, 4, 6))
    cod_deliveries = draw.integer("account_opening.cod_deliveries", 8, 16, 2)
    dormant_months = draw.pick("account_opening.dormant_months", (12, 18))
    address_months = draw.pick("account_opening.address_months", (3, 6))
    form_code = draw.pick("account_opening.form_code", ("HP-AO1", "HP-AO2", "HP-NA1"))
    first_visit_days = draw.integer("account_opening.first_visit_days", 7, 14)
    number_digits = draw.pick("account_opening.number_digits", (5, 6))
    example_digits = draw.integer(
        "account_opening.example_no", 10 ** (number_digits - 1), 10**number_digits - 1
    )
    example_number = f"{facts.depots[0][0]}{example_digits}"

    parts: list[str] = []
    parts.append("# Opening a Trading Account")
    parts.append(
        f"A guide for new customers of {facts.company}. Document reference HP-COM-ACC, revised January 2026."
    )
    parts.append(
        f"Thank you for your interest in trading with {facts.short_name}. This guide explains how to open an "
        "account with us, what we will ask you for, how we decide whether to give credit, how long each "
        "step takes, and who will look after you once the account is open. Most customers need one sitting "
        "of about twenty minutes to complete the application, provided they have the documents below to "
        "hand."
    )

    parts.append("## Two kinds of account")
    parts.append(
        "There are two kinds of trading account. A credit account lets you order and pay later, on the "
        "payment terms for your type of business. A cash-on-delivery account, usually called a COD account, "
        "lets you order in the same way but pay for each delivery when it arrives, by card or cash. Both "
        "kinds of account have the same prices, the same tiers and access to the same Trade Portal."
    )
    parts.append(
        "A COD account is quicker to open because we do not need a credit check or trade references. Many "
        "customers start on COD while their credit application is being considered, and some simply prefer "
        "to pay as they go."
    )

    parts.append("## How to apply")
    parts.append(
        "Apply online through the Open an Account page of the Trade Portal, or ask your local depot to post "
        f"or email the paper application form {form_code}. The online form can be saved and finished later. "
        "One person must sign the application on behalf of the business: a director for a limited company, "
        "the owner for a sole trader, a partner for a partnership, or the business manager or bursar for a "
        "school or academy."
    )
    parts.append(
        "You will be asked for the trading name and legal name of the business, the delivery address with "
        "any access restrictions such as low bridges, narrow lanes or a rear yard entrance, the days and "
        "times your kitchen can take deliveries, the name of the person who will place orders, and the name "
        "and email address of the person who deals with invoices."
    )

    parts.append("## Documents we need")
    parts.append(
        "The documents depend on how your business is set up. Please upload clear scans or photos; we do "
        "not need originals."
    )
    parts.append(
        "\n".join(
            [
                "| Type of business | Documents |",
                "| --- | --- |",
                "| Limited company or LLP | Company registration number, names and home addresses of the "
                "directors, VAT number if registered |",
                "| Sole trader | Photo ID (passport or driving licence) and proof of home address for the "
                "owner, VAT number if registered |",
                "| Partnership | Photo ID and proof of home address for two partners, VAT number if "
                "registered |",
                "| School or academy | School name and unique reference number, official purchase order "
                "contact, purchase ledger contact |",
                "| Care home or nursing home | Care regulator registration number, name of the registered "
                "manager, purchase ledger contact |",
            ]
        )
    )
    parts.append(
        f"Proof of home address must be dated within the last {address_months} months: a utility bill, "
        "council tax bill or bank statement is fine, but a mobile phone bill is not. Every business that "
        "prepares or serves food, except schools and care homes run directly by a local authority, must "
        "also show that it is registered as a food business with its local authority. Registration is free, "
        "and the local authority expects it at least 28 days before you start trading. If your registration "
        "is still in progress, send the confirmation email you received when you applied."
    )
    parts.append(
        "We also need a bank account in the name of the business for Direct Debit or refunds. For a limited "
        "company the account must be in the company's name, not a director's personal account."
    )

    parts.append("## Credit checks")
    parts.append(
        "When you apply for a credit account we run a credit check on the business through a credit "
        "reference agency. For sole traders and partnerships, the check also covers the owner or partners "
        f"personally. For limited companies that have been trading for less than {history_months} months, we "
        "also check the directors. The check leaves a mark on the file that other lenders can see, but one "
        "check does not affect a credit score in any meaningful way."
    )
    parts.append(
        "The credit check is one input to our decision, not the whole of it. A new business with no filed "
        "accounts can still be given credit on the strength of its trade references, the experience of its "
        "owners and a personal guarantee. If we cannot offer credit, we will tell you why in general terms, "
        "offer a COD account instead, and tell you when you can apply again."
    )

    parts.append("## Trade references")
    parts.append(
        f"Credit applications need {refs_n} trade references from suppliers you have traded with on credit "
        f"for at least {ref_months} months. Food and drink suppliers are best, but a linen, equipment or "
        "packaging supplier is also acceptable. A bank reference is not a trade reference, and we cannot "
        "accept a reference from a business owned by the same people as yours."
    )
    parts.append(
        f"We contact your referees by email. If a referee has not replied within {ref_wait} working days, we "
        "will ask you for a different one, so it helps to let your referees know that we will be in touch. "
        "Schools, academies and local authorities do not need trade references."
    )

    parts.append("## Approval times")
    parts.append(
        f"A COD account is normally open within {cod_days} working day{'s' if cod_days > 1 else ''} of a "
        f"complete application. A credit account is normally approved within {credit_days} working days of "
        "the last reference being returned. Applications from schools, academies and local authorities that "
        f"have to be registered on a council or trust supplier system can take up to {public_days} working "
        "days, because part of the process is in their hands rather than ours."
    )
    parts.append(
        "The clock starts when everything has arrived. The most common causes of delay are a missing proof "
        "of address, a food business registration that cannot be found, and a referee who does not reply. "
        "The portal shows what is still outstanding on your application."
    )

    parts.append("## Credit limits and personal guarantees")
    parts.append(
        f"A new credit account normally starts with a credit limit of {gbp(start_limit)}. We can set a "
        f"higher starting limit, up to {gbp(max_start_limit)}, where the credit check, the references and "
        "the expected spend support it. Payment terms for the first months of a new account are shorter "
        "than the normal terms; the Payment Terms and Late Fees document sets out the terms and how limits "
        "are reviewed afterwards."
    )
    parts.append(
        f"For a limited company that has been trading for less than {pg_years} years and asks for a starting "
        f"limit above {gbp(pg_limit)}, we ask a director to sign a personal guarantee. The guarantee covers "
        "the account balance only and ends when the account is closed and the balance is cleared, or "
        "earlier if we agree to release it after the company has filed two years of accounts."
    )

    parts.append("## Cash-on-delivery accounts")
    parts.append(
        "On a COD account you pay the driver when the delivery arrives. The driver's terminal takes debit "
        "and credit cards and contactless payments. Cash is accepted up to a limit, set out in the Payment "
        "Terms and Late Fees document. If nobody is on site who can pay, the driver cannot leave the "
        "delivery, so please make sure someone authorised to pay is there during your delivery window."
    )
    parts.append(
        f"After {cod_months} months on COD with at least {cod_deliveries} deliveries paid without a problem, "
        "you can ask to move to a credit account. We still need trade references and a credit check, but "
        "your payment record with us counts as one of the references, so you only need one more."
    )

    parts.append("## Your account number and first order")
    parts.append(
        "Once the account is open you receive an account number, made of the first letter of your depot and "
        f"{number_digits} digits, such as {example_number}. Please quote it whenever you contact us. You "
        "will also receive an email inviting the person who places orders to set up a Trade Portal login, "
        "and a copy of your price file."
    )
    parts.append(
        "Your first order can be placed as soon as the account number arrives. We recommend ringing the "
        "telesales team for the first order, so that they can check your delivery day and explain the "
        "cut-off times for your route."
    )

    parts.append("## Account managers")
    parts.append(
        "Every account belongs to one of our three depots, normally the nearest to your delivery address. "
        "Accounts on the Silver and Gold pricing tiers have a named account manager, who visits at least "
        "once a quarter, reviews the price file and menu with you, and is the first person to call about "
        "anything commercial. Accounts on the Standard and Bronze tiers are looked after by the telesales "
        "team at their depot, who know the routes and the products just as well."
    )
    parts.append(
        "New accounts that start on the Silver or Gold tier receive a first visit from their account "
        f"manager within {first_visit_days} days of opening. The account managers by depot are:"
    )
    rows = ["| Depot | Account manager | Extension | Office day |", "| --- | --- | --- | --- |"]
    for i, (depot, name) in enumerate(zip(facts.depots, managers, strict=True)):
        rows.append(f"| {depot} | {name} | {exts[i]} | {office_days[i]} |")
    parts.append("\n".join(rows))
    parts.append(
        f"Account managers can be reached through the main number, {facts.phone}, by asking for them by name "
        "or extension. They spend most of the week visiting customers and are at their depot on the office "
        "day shown, which is the best day to catch them by phone. Their direct email addresses are given in "
        "the welcome email."
    )

    parts.append("## Changes and closing an account")
    parts.append(
        "Tell us about a change of ownership, legal entity or bank account before it happens. A change of "
        "legal entity, such as a sole trader becoming a limited company, needs a new application, because "
        "the credit check and any guarantee were given to the old entity. A change of delivery address or "
        "ordering contact can be made through the portal."
    )
    parts.append(
        f"An account that places no orders for {dormant_months} months becomes dormant. A dormant account "
        "can be reopened by calling the telesales team; for a credit account we run a fresh credit check "
        "before the first new order is released. You can close your account at any time by writing to us; "
        "the balance becomes due on closure."
    )
    return "\n\n".join(parts) + "\n"
