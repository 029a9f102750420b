"""Customer service contact channels, opening hours, response-time SLAs and complaint escalation."""

from __future__ import annotations

from cairn_action.sample.documents.account_opening import account_managers, fresh_names
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "customer-service-hours-and-slas.md"

QUARTERS = ("January to March", "April to June", "July to September")


def gbp(amount: float) -> str:
    return f"£{amount:,.0f}" if float(amount).is_integer() else f"£{amount:,.2f}"


def team_leaders(draw: Draw, facts: Facts) -> list[str]:
    """One team leader per depot, sharing no name with named staff or the account managers."""
    managers = tuple(account_managers(draw, facts))
    return fresh_names(draw, "customer_service.leaders", facts, len(facts.depots), exclude=managers)


def render(draw: Draw, facts: Facts) -> str:
    leaders = team_leaders(draw, facts)
    wk_open = draw.pick("customer_service.wk_open", ("06:00", "06:30", "07:00"))
    wk_close = draw.pick("customer_service.wk_close", ("19:00", "19:30", "20:00"))
    bh_open = draw.pick("customer_service.bh_open", ("08:00", "09:00"))
    bh_close = draw.pick("customer_service.bh_close", ("12:00", "13:00", "14:00"))
    chat_open = draw.pick("customer_service.chat_open", ("08:00", "08:30"))
    chat_close = draw.pick("customer_service.chat_close", ("17:00", "17:30", "18:00"))
    duty_minutes = draw.pick("customer_service.duty_minutes", (10, 15, 20))
    p1_minutes = draw.pick("customer_service.p1_minutes", (15, 20, 30))
    p1_plan_hours = draw.pick("customer_service.p1_plan_hours", (2, 3))
    p2_hours = draw.pick("customer_service.p2_hours", (1, 2))
    p3_hours = draw.pick("customer_service.p3_hours", (4, 6, 8))
    p3_resolve_days = draw.integer("customer_service.p3_resolve_days", 3, 5)
    p4_days = draw.integer("customer_service.p4_days", 2, 3)
    answer_seconds = draw.pick("customer_service.answer_seconds", (20, 30, 45))
    answer_share = draw.pick("customer_service.answer_share", (80, 85, 90))
    abandon_pct = draw.pick("customer_service.abandon_pct", (3, 4, 5))
    email_hours = draw.pick("customer_service.email_hours", (4, 6, 8))
    chat_seconds = draw.pick("customer_service.chat_seconds", (60, 90, 120))
    ack_days = 1
    stage1_days = draw.integer("customer_service.stage1_days", 3, 5)
    stage2_days = stage1_days + draw.integer("customer_service.stage2_step", 3, 6)
    stage3_days = stage2_days + draw.integer("customer_service.stage3_step", 5, 10)
    stage4_days = draw.pick("customer_service.stage4_days", (20, 25, 30))
    adviser_credit = draw.pick("customer_service.adviser_credit", (25, 40, 50))
    leader_credit = draw.pick("customer_service.leader_credit", (150, 200, 250))
    manager_ext = draw.integer("customer_service.manager_ext", 100, 149)
    leader_exts = draw.shuffled("customer_service.leader_exts", list(range(150, 200)))[: len(leaders)]
    survey_days = draw.pick("customer_service.survey_days", (7, 14))

    perf_rows = []
    for i, quarter in enumerate(QUARTERS):
        key = f"customer_service.perf:{i}"
        perf_rows.append(
            (
                quarter,
                draw.integer(key + ":answered", 76, 94),
                draw.integer(key + ":email", 81, 98),
                draw.integer(key + ":complaints", 18, 64),
                draw.integer(key + ":stage1", 71, 92),
            )
        )

    parts: list[str] = []
    parts.append("# Customer Service Hours and Service Levels")
    parts.append(
        f"Document reference HP-COM-CSL, issued October 2026. Owner: {facts.customer_service_manager}, "
        f"Customer Service Manager, {facts.company}."
    )
    parts.append(
        "This document tells you how to reach our customer service team, when each channel is open, how "
        "quickly we promise to respond, and what to do if you are not happy with the answer you get. The "
        f"customer service team works from {facts.head_office_town} and handles orders, delivery queries, "
        "claims for damaged, short or wrong goods, product questions and general account questions for all "
        "three depots."
    )

    parts.append("## Ways to contact us")
    parts.append(
        f"Our main number is {facts.phone}. When you call, the menu offers five options. Option 1 is for "
        "placing or changing an order. Option 2 is for deliveries and claims, including anything missing, "
        "damaged or wrong. Option 3 is for accounts and payments and goes to credit control. Option 4 is "
        "for food safety and allergen questions and transfers you to the food safety line. Option 5 is for "
        "everything else. Outside opening hours, option 9 connects urgent calls to the duty manager."
    )
    parts.append(
        f"Email goes to {facts.support_email}. Orders sent by email should go to {facts.orders_email} "
        "instead, so that they reach the order desk directly; an order sent to the help address is "
        "forwarded, but it may miss the cut-off for your route. The Trade Portal, which is our web shop and "
        "is also available as a mobile app, has a live chat window on every page and a Help tab where you "
        "can raise a ticket and follow its progress."
    )
    parts.append(
        "Customers who are deaf, hard of hearing or have a speech impairment can call us through Relay UK "
        "by dialling 18001 before our main number. Statements and invoices are available in large print on "
        "request."
    )

    parts.append("## Opening hours")
    parts.append(
        "The table shows when each channel is staffed. Emails and portal tickets can be sent at any time, "
        "but they are only read during the hours shown."
    )
    hours = [
        "| Channel | Monday to Friday | Saturday | Sunday | Bank holidays |",
        "| --- | --- | --- | --- | --- |",
        f"| Phone | {wk_open} to {wk_close} | Closed | Closed | {bh_open} to {bh_close} |",
        f"| Email and portal tickets | {wk_open} to {wk_close} | Closed | Closed | {bh_open} to {bh_close} |",
        f"| Live chat | {chat_open} to {chat_close} | Closed | Closed | Closed |",
        "| Duty manager (option 9) | Outside phone hours | All day | All day | Outside phone hours |",
    ]
    parts.append("\n".join(hours))
    parts.append(
        "Customer service is closed at weekends: on Saturdays and Sundays the phone lines, email and live "
        "chat are all unstaffed, even though some zones receive Saturday deliveries. Orders can still be "
        "placed through the Trade Portal over the weekend, up to the cut-off times in the Delivery "
        "Schedules and Cut-offs document."
    )
    parts.append(
        "At weekends the duty manager line is the only way to reach a person, and it is for urgent problems "
        "only: a food safety concern, a Saturday delivery that has not arrived, or a problem that will stop "
        "a school, care home or hospital kitchen from serving a meal. The duty manager calls back within "
        f"{duty_minutes} minutes. Ordinary orders and claims left with the duty manager are passed to the "
        "team on the next working day."
    )
    parts.append(
        "Bank holiday hours apply on the bank holidays on which we deliver. On the days over Christmas and "
        "New Year when we do not deliver, the phone lines follow the closure dates in the Holiday and "
        "Closure Calendar, and only the duty manager line is available."
    )

    parts.append("## How we set priorities")
    parts.append(
        "Every call, email, chat and ticket is given a priority when it reaches us, based on what is at "
        "stake, not on the channel it came through. The priority decides how quickly we respond and who "
        "deals with it."
    )
    prio = [
        "| Priority | Examples | First response | Target to resolve |",
        "| --- | --- | --- | --- |",
        "| P1 Critical | Suspected food poisoning or foreign matter in food; no delivery for a care home or "
        f"school on the day | Call back within {p1_minutes} minutes | Action plan within {p1_plan_hours} "
        "hours |",
        "| P2 High | Missing or wrong items needed for today's service; a delivery running late | Within "
        f"{p2_hours} hour{'s' if p2_hours > 1 else ''} | Same working day |",
        f"| P3 Normal | Claims, invoice queries, product information | Within {p3_hours} working hours | "
        f"Within {p3_resolve_days} working days |",
        f"| P4 Low | Account changes, price file requests, general questions | Within {p4_days} working days "
        "| Within 10 working days |",
    ]
    parts.append("\n".join(prio))
    parts.append(
        "A P1 call is never left in a queue. If every adviser is busy, it rings through to a team leader, "
        f"and if it is outside opening hours it goes to the duty manager. The {p1_minutes}-minute call-back "
        "applies during opening hours; out of hours the duty manager's own call-back time applies. For "
        "suspected food poisoning, we will ask for the product name, the batch code and the time the dish "
        "was served, and our food safety team will take over from the adviser. A suspected allergic "
        "reaction is not handled through this queue at all: report it on the food safety line described in "
        "our Allergen Information document, which has its own hours and out-of-hours number. If someone is "
        "seriously unwell, call 999 first and us second."
    )
    parts.append(
        "A response is a reply from a person that deals with the substance of your query or tells you what "
        "will happen next and when. An automatic acknowledgement does not count as a response. Working "
        f"hours are the phone hours in the table above; a P3 email received after {wk_close} on a Friday "
        f"therefore has its clock started at {wk_open} on Monday morning."
    )

    parts.append("## Service levels by channel")
    parts.append(
        f"On the phone, our aim is to answer {answer_share}% of calls within {answer_seconds} seconds, and "
        f"to keep the share of callers who hang up before being answered below {abandon_pct}%. If you are in "
        "a queue, the system tells you your position and offers a call-back, which keeps your place."
    )
    parts.append(
        f"We aim to send a first reply to every email within {email_hours} working hours. Live chats are "
        f"picked up within {chat_seconds} seconds during chat hours; when the chat window shows that all "
        "advisers are busy, you can leave a message that becomes a portal ticket. Portal tickets are "
        "acknowledged automatically and get a reply from a person in line with their priority."
    )
    parts.append(
        "These channel targets sit alongside the priority targets. A P2 query sent by email is answered "
        f"within {p2_hours} hour{'s' if p2_hours > 1 else ''}, not within the email target, because its "
        "priority is higher. For anything urgent, phone rather than email: a phone call is assessed the "
        "moment it is answered, while an email has to be read first."
    )

    parts.append("## Goodwill credits")
    parts.append(
        f"Advisers can give a goodwill credit of up to {gbp(adviser_credit)} on the spot when we have let "
        "you down, for example when a redelivery was promised and missed. Team leaders can authorise up to "
        f"{gbp(leader_credit)}. Anything larger is decided by {facts.customer_service_manager}. Goodwill "
        "credits are separate from credits for returned, damaged or short goods, which follow the Returns "
        "and Credit Notes Policy and are not limited in this way."
    )

    parts.append("## Making a complaint")
    parts.append(
        "We would rather hear about a problem than lose a customer over it. A complaint is any expression "
        "of dissatisfaction with our products, our service or our people that needs a response. You can "
        f"complain through any channel. We acknowledge every complaint within {ack_days} working day and "
        "give it a reference number."
    )
    parts.append(
        "Stage 1: the adviser or the team leader for your depot investigates and sends a full response "
        f"within {stage1_days} working days. Most complaints end here."
    )
    parts.append(
        "Stage 2: if you are not satisfied with the stage 1 response, ask for the complaint to be "
        "escalated. It is reviewed by a different team leader from the one who handled stage 1, who will "
        f"speak to you before replying. The stage 2 response is sent within {stage2_days} working days of "
        "the original complaint."
    )
    parts.append(
        f"Stage 3: if you are still not satisfied, the complaint goes to {facts.customer_service_manager}, "
        f"the Customer Service Manager, who can be reached on extension {manager_ext}. The stage 3 response "
        f"is sent within {stage3_days} working days of the original complaint and includes any remedy we "
        "offer."
    )
    parts.append(
        f"Stage 4: as a final step, you can write to the managing director, {facts.managing_director}, at "
        f"our {facts.head_office_town} head office. The managing director's reply is sent within "
        f"{stage4_days} working days of your letter and is our final position."
    )
    parts.append(
        "Complaints about food safety, allergens or a suspected illness are not handled through these "
        "stages. They go straight to the food safety team, who keep you informed until the investigation is "
        "closed. Disputes about an invoice go to credit control under the dispute process in our Payment "
        "Terms and Late Fees document."
    )

    parts.append("## Team leaders")
    parts.append(
        "Each depot has a customer service team leader who handles stage 1 complaints for the accounts at "
        "that depot, reviews accounts with repeated claims, and covers the duty manager rota in turn."
    )
    rows = ["| Depot | Team leader | Extension |", "| --- | --- | --- |"]
    for depot, name, ext in zip(facts.depots, leaders, leader_exts, strict=True):
        rows.append(f"| {depot} | {name} | {ext} |")
    parts.append("\n".join(rows))

    parts.append("## How we are doing")
    parts.append(
        "We publish our results against the main service levels every quarter. The figures for 2026 so far "
        "are below. The complaints column counts complaints received in the quarter across all three depots."
    )
    perf = [
        "| Quarter (2026) | Calls answered in target | Emails answered in target | Complaints | Resolved at "
        "stage 1 |",
        "| --- | --- | --- | --- | --- |",
    ]
    perf += [f"| {q} | {a}% | {e}% | {c} | {s}% |" for q, a, e, c, s in perf_rows]
    parts.append("\n".join(perf))
    parts.append(
        f"After a complaint is closed, or {survey_days} days after a claim is settled, we may email you a "
        "short survey of three questions. The answers are read by the team leader for your depot, and "
        "comments that name an adviser are passed on to them, good or bad."
    )
    return "\n\n".join(parts) + "\n"
