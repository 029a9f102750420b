"""Payment terms, payment methods, late-payment interest and fees, credit limits, stop and disputes."""

from __future__ import annotations

from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "payment-terms-and-late-fees.md"

ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def gbp(amount: float) -> str:
    return f"£{amount:,.0f}" if float(amount).is_integer() else f"£{amount:,.2f}"


def render(draw: Draw, facts: Facts) -> str:
    rest_days = draw.pick("payment.rest_days", (14, 21, 30))
    hotel_days = draw.pick("payment.hotel_days", (30, 45))
    care_days = draw.pick("payment.care_days", (21, 28))
    new_days = draw.pick("payment.new_days", (7, 10, 14))
    new_months = draw.pick("payment.new_months", (3, 6))
    dd_fee = draw.pick("payment.dd_fee", (15.0, 20.0, 25.0))
    card_pct = draw.pick("payment.card_pct", (1.5, 1.75, 2.0, 2.5))
    cheque_date = draw.pick("payment.cheque_date", ("5 January 2026", "2 February 2026", "1 April 2026"))
    cash_limit = draw.pick("payment.cash_limit", (250, 300, 500))
    reminder_days = draw.integer("payment.reminder_days", 3, 5)
    call_days = reminder_days + draw.integer("payment.call_step", 4, 7)
    stop_days = draw.pick("payment.stop_days", (14, 21, 28))
    stop_over_pct = draw.pick("payment.stop_over_pct", (5, 10, 15))
    release_hours = draw.pick("payment.release_hours", (2, 4))
    agency_days = draw.pick("payment.agency_days", (60, 75, 90))
    proforma_stops = draw.integer("payment.proforma_stops", 3, 4)
    proforma_months = draw.pick("payment.proforma_months", (3, 6))
    dispute_days = draw.pick("payment.dispute_days", (7, 10, 14))
    dispute_reply = draw.integer("payment.dispute_reply", 3, 5)
    statement_day = draw.integer("payment.statement_day", 1, 3)
    controller_ext = draw.integer("payment.controller_ext", 210, 289)
    limit_review_days = draw.integer("payment.limit_review_days", 3, 7)
    limit_review_months = draw.pick("payment.limit_review_months", (6, 12))
    interest_example = draw.pick("payment.interest_example", (1840.0, 2360.0, 3120.0))
    example_days = draw.pick("payment.interest_example_days", (30, 45, 60))
    plan_months = draw.pick("payment.plan_months", (3, 4, 6))
    plan_approval = draw.pick("payment.plan_approval", (2000, 2500, 5000))
    base_rate = draw.pick("payment.base_rate", (3.75, 4.0, 4.25))

    interest_rate = base_rate + 8
    daily_interest = interest_example * interest_rate / 100 / 365
    example_interest = daily_interest * example_days

    parts: list[str] = []
    parts.append("# Payment Terms and Late Fees")
    parts.append(
        f"Document reference HP-COM-PAY. Issued by the credit control team of {facts.company}. Applies to "
        "all invoices dated on or after 5 January 2026."
    )
    parts.append(
        "These are the terms on which we give credit to trading accounts. They cover how long you have to "
        "pay, how you can pay and what each method costs, what happens when a payment is late, how credit "
        "limits are set and changed, when an account is put on stop, and how to dispute an invoice. The "
        "terms form part of your trading agreement with us; if your account has a signed agreement with "
        "different terms, the signed agreement takes priority."
    )
    parts.append(
        f"Credit control is led by {facts.credit_controller}, Credit Controller, who is responsible for "
        f"credit limits, overdue accounts and payment disputes. You can reach the team on {facts.phone} "
        f"(option 3, or extension {controller_ext} for the credit controller directly) or by email at "
        f"credit@{facts.email_domain}."
    )

    parts.append("## Credit terms by type of customer")
    parts.append(
        "Payment terms depend on the kind of business you run, because schools, care homes and restaurants "
        "are paid for their own services in different ways. Terms run from the date of the invoice, except "
        "where the table says end of month, in which case they run from the last day of the month in which "
        "the invoice was dated."
    )
    table = [
        "| Customer type | Payment terms |",
        "| --- | --- |",
        f"| Restaurants, cafés, pubs and takeaways | {rest_days} days from invoice date |",
        f"| Hotels and contract caterers | {hotel_days} days from end of month |",
        "| Schools, academies and local authorities | 30 days from invoice date |",
        f"| Care homes and nursing homes | {care_days} days from invoice date |",
        f"| Any new credit account, first {new_months} months | {new_days} days from invoice date |",
        "| Cash-on-delivery accounts | Payment in full at delivery |",
    ]
    parts.append("\n".join(table))
    parts.append(
        f"A new credit account pays on {new_days}-day terms for its first {new_months} months, whatever kind "
        "of business it is, except schools, academies and local authorities, which are on 30-day terms from "
        "the start. At the end of the opening period, if every invoice has been paid on time, the account "
        "moves to the normal terms for its type without needing to ask. If any invoice was paid late in the "
        "opening period, the credit controller reviews the account before the terms are extended."
    )

    parts.append("## Statements")
    parts.append(
        f"We email a statement on the {ORDINALS[statement_day]} working day of every month to the accounts "
        "contact we hold for you. The statement lists every open invoice and credit note with its due date. "
        "Please check it: an invoice you do not recognise, or a credit note you expected that is missing, "
        "should be raised with credit control straight away rather than at the next payment run."
    )

    parts.append("## How to pay")
    parts.append(
        "Direct Debit is our preferred method. We collect each invoice on its due date, so you never pay "
        "early and never pay late. We give at least three working days' notice of each collection by email. "
        "Direct Debit is free, and accounts that pay by Direct Debit are not asked for a new trade "
        "reference when they ask for a higher credit limit."
    )
    parts.append(
        "If a Direct Debit collection is returned unpaid by your bank, we charge a failed-collection fee of "
        f"{gbp(dd_fee)} and try the collection again three working days later. A second failure in the same "
        "month puts the account on stop until the balance is paid by another method."
    )
    parts.append(
        "Bank transfer by BACS or Faster Payments is free. Our bank details are printed on every invoice "
        "and statement; please quote your account number as the payment reference, or the invoice number if "
        "you are paying a single invoice. We will never tell you about a change of bank details by email "
        "alone. If you receive such an email, do not pay; call credit control on the number printed on your "
        "statement to check."
    )
    parts.append(
        "Debit cards carry no surcharge. Personal credit cards also carry no surcharge. Commercial and "
        f"corporate credit cards, which cost us more to accept, carry a surcharge of {card_pct:g}% of the "
        "amount paid, shown separately on your receipt. Cards can be used over the phone with credit "
        "control, through the payment page of the Trade Portal, or on the driver's card terminal at "
        "delivery."
    )
    parts.append(
        f"We stopped accepting cheques on {cheque_date}. Any cheque we receive is returned to the sender "
        f"uncashed. Cash is accepted only on cash-on-delivery accounts and only up to {gbp(cash_limit)} per "
        "delivery; drivers do not carry change, so please have the exact amount ready or pay by card."
    )

    parts.append("## Late payment")
    parts.append(
        "We reserve the right to charge interest and compensation on late payments under the Late Payment "
        "of Commercial Debts (Interest) Act 1998. Statutory interest runs from the day after the due date "
        "at 8% a year above the Bank of England base rate in force on the last 30 June or 31 December "
        "before the invoice fell due. We do not charge interest on the part of an invoice that is under a "
        "genuine dispute while the dispute is being looked at."
    )
    parts.append(
        f"Worked example: an invoice of {gbp(interest_example)} paid {example_days} days late, with a base "
        f"rate of {base_rate:g}%, accrues interest at {interest_rate:g}% a year, which is about "
        f"£{daily_interest:.2f} a day and £{example_interest:.2f} for the {example_days} days."
    )
    parts.append(
        "In addition, the Act allows a fixed sum of compensation for the cost of recovering each late "
        "invoice. We apply it per invoice, according to the size of the invoice:"
    )
    parts.append(
        "\n".join(
            [
                "| Invoice value | Fixed compensation |",
                "| --- | --- |",
                "| Up to £999.99 | £40 |",
                "| £1,000 to £9,999.99 | £70 |",
                "| £10,000 and above | £100 |",
            ]
        )
    )
    parts.append(
        "In practice we waive interest and compensation for an account that pays late for the first time "
        "and clears the balance when reminded. We charge them where payment is repeatedly late or where we "
        "have to pass the debt for collection."
    )

    parts.append("## Reminders and account on stop")
    parts.append(
        f"If an invoice is not paid by its due date, we email a reminder {reminder_days} days after it fell "
        f"due. If it is still unpaid {call_days} days after the due date, a member of the credit control "
        "team phones the accounts contact to agree a payment date."
    )
    parts.append(
        f"An account is put on stop when any invoice is more than {stop_days} days overdue, or when the "
        f"balance goes over the credit limit by more than {stop_over_pct}%. It is also put on stop after a "
        "second failed Direct Debit in a month. We tell you by email and phone before the stop takes effect "
        "wherever we can."
    )
    parts.append(
        "While an account is on stop, new orders are held and are not picked, standing orders are "
        "suspended, and the portal shows a banner on every page. Deliveries already on the van that day are "
        "completed. Schools, care homes and other settings that feed vulnerable people are always phoned "
        "before a stop takes effect, and we will agree a delivery of essential lines with them while "
        "payment is arranged."
    )
    parts.append(
        f"The stop is lifted within {release_hours} working hours of cleared funds reaching us for the "
        "overdue amount, or for enough of the balance to bring it back within the limit. Held orders are "
        f"then picked for the next available delivery. An account that goes on stop {proforma_stops} times "
        "in twelve months moves to pro-forma terms, paying for each order before it is picked, for the next "
        f"{proforma_months} months."
    )
    parts.append(
        f"Debts more than {agency_days} days overdue, where no payment plan has been agreed, are passed to a "
        "debt collection agency, and the account is closed. The fixed compensation and interest described "
        "above are added to the debt when it is passed on."
    )

    parts.append("## Payment plans")
    parts.append(
        "If your business is going through a difficult period, talk to credit control before an invoice "
        "becomes overdue rather than after. We would much rather agree a plan than stop an account. A "
        f"payment plan spreads an overdue balance over up to {plan_months} monthly instalments, collected by "
        "Direct Debit, while new deliveries are paid for on pro-forma or cash-on-delivery terms."
    )
    parts.append(
        "While the instalments are paid on time we freeze statutory interest and compensation on the "
        "balance in the plan. A missed instalment ends the plan, and the remaining balance becomes due at "
        f"once. Plans for balances above {gbp(plan_approval)} are approved by the credit controller "
        "personally, and every plan is confirmed in writing before the first instalment is collected."
    )

    parts.append("## Credit limits")
    parts.append(
        "Every credit account has a credit limit: the most we will let the balance reach, including "
        "invoices that are not yet due. Your starting limit is set when the account is opened, from the "
        "credit check and trade references described in the Account Opening guide. The limit is shown on "
        "every statement and on the account page of the Trade Portal."
    )
    parts.append(
        "To ask for a higher limit, email credit control with the limit you need and the reason, such as a "
        f"new site or a seasonal peak. We reply within {limit_review_days} working days. We may run a fresh "
        "credit check and ask for recent accounts for a large increase. Temporary increases for the "
        "Christmas period or a one-off event can be agreed for a set number of weeks."
    )
    parts.append(
        f"We review every credit limit at least every {limit_review_months} months. A limit can go down as "
        "well as up: if the review finds that you regularly use much less than your limit, or if the credit "
        "check has changed, we will tell you in writing at least fourteen days before a reduction takes "
        "effect."
    )

    parts.append("## Disputing an invoice")
    parts.append(
        f"If you believe an invoice is wrong, raise a dispute within {dispute_days} days of the invoice date "
        "by email to credit control or through the invoice page on the portal. Tell us which lines you "
        "dispute and why. Price disputes need the price you expected and where it came from, such as a "
        "fixed-price agreement or a promotion leaflet. Claims for damaged, short or wrong goods are not "
        "invoice disputes: make them under the Returns and Credit Notes Policy."
    )
    parts.append(
        "Pay the undisputed part of the invoice by its due date. The disputed lines are put on hold, so "
        "they do not count as overdue and do not lead to a stop while we look at them. We send a written "
        f"answer within {dispute_reply} working days, with a credit note if the dispute is upheld or an "
        "explanation if it is not."
    )
    parts.append(
        f"If you disagree with our answer, ask for the dispute to be reviewed by {facts.credit_controller}. "
        "If you remain unhappy after that review, you can take the matter to the managing director, "
        f"{facts.managing_director}, whose decision closes our internal process. A dispute that is not "
        "upheld becomes payable seven days after the final answer."
    )
    return "\n\n".join(parts) + "\n"
