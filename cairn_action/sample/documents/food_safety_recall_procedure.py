"""The food safety recall procedure: withdrawal vs recall, decisions, timelines, customer actions, credits,
and the log of recalls and withdrawals in 2025-2026."""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.documents.allergen_information import MONTHS, recipe_changes
from cairn_action.sample.documents.company_history import local_people
from cairn_action.sample.documents.product_catalogue import Product, product_map
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "food-safety-recall-procedure.md"


@dataclass(frozen=True)
class Incident:
    ref: str
    date: str
    product: Product
    kind: str  # "Recall" or "Withdrawal"
    reason: str
    customers: int
    recovered: int  # percent of delivered stock recovered or confirmed destroyed


# (product key, kind, reason, year, month range)
_LOG = (
    ("smoked_salmon", "Recall", "Listeria monocytogenes found in the supplier's batch testing", 2025, (2, 3)),
    ("mayo_vegan", "Recall", "Undeclared egg from cross-contact at the supplier", 2025, (4, 5)),
    ("semi_milk", "Withdrawal", "Sour taste reported by customers; a quality fault, not a safety risk", 2025,
     (7, 8)),
    ("pesto", "Recall", "Possible glass fragments from a chipped filling head", 2025, (9, 10)),
    ("goujons", "Withdrawal", "Wrong best-before date printed on the outer case", 2025, (11, 12)),
    ("gf_penne", "Recall", "Gluten above 20 mg per kg in one batch", 2026, (3, 3)),
    ("berries", "Withdrawal", "Supplier alert on a raw material lot, withdrawn before any was served", 2026,
     (4, 4)),
    ("haddock", "Recall", "Milk not declared: new-recipe fillets packed in old packaging", 2026, (5, 6)),
    ("granola", "Withdrawal", "Faulty seal on inner bags letting in moisture", 2026, (7, 8)),
)  # fmt: skip


def incidents(draw: Draw) -> list[Incident]:
    pm = product_map(draw)
    out: list[Incident] = []
    counters: dict[int, int] = {}
    for key, kind, reason, year, (m_lo, m_hi) in _LOG:
        month = draw.integer(f"recall.log.{key}.month", m_lo, m_hi)
        day = draw.integer(f"recall.log.{key}.day", 2, 27)
        counters[year] = counters.get(year, 0) + 1
        prefix = "RC" if kind == "Recall" else "WD"
        out.append(
            Incident(
                ref=f"{prefix}-{year % 100}-{counters[year]:02d}",
                date=f"{day} {MONTHS[month - 1]} {year}",
                product=pm[key],
                kind=kind,
                reason=reason,
                customers=draw.integer(f"recall.log.{key}.customers", 6, 140),
                recovered=draw.integer(f"recall.log.{key}.recovered", 86, 100),
            )
        )
    return out


def render(draw: Draw, facts: Facts) -> str:
    lp = local_people(draw, facts)
    log = incidents(draw)
    by_key = {i.product.key: i for i in log}
    haddock_change = next(c for c in recipe_changes(draw) if c.product.key == "haddock")
    hfs, qm, md = facts.head_of_food_safety, facts.quality_manager, facts.managing_director
    version = draw.pick("recall.version", ("4.1", "4.2", "5.0"))
    effective_month = draw.pick("recall.effective_month", MONTHS[8:11])
    effective = f"{draw.integer('recall.effective_day', 1, 28)} {effective_month} 2026"
    decide_hours = draw.integer("recall.decide_hours", 1, 3)
    hold_minutes = draw.integer("recall.hold_minutes", 30, 60, 15)
    recall_notify = draw.integer("recall.notify_recall", 2, 4)
    withdraw_notify = draw.integer("recall.notify_withdrawal", 8, 12)
    ack_hours = draw.integer("recall.ack_hours", 4, 6)
    callback_tries = draw.pick("recall.callback_tries", ("twice", "three times"))
    pos_days = draw.pick("recall.pos_days", (14, 21, 28))
    collect_days = draw.integer("recall.collect_days", 1, 3)
    recall_credit = draw.integer("recall.credit_recall", 3, 5)
    withdraw_credit = draw.integer("recall.credit_withdrawal", 7, 10)
    disposal_cap = draw.integer("recall.disposal_cap", 50, 150, 25)
    replacement_cap = draw.integer("recall.replacement_cap", 250, 500, 50)
    mock_hours = draw.integer("recall.mock_hours", 2, 4)
    mock_month = draw.pick("recall.mock_month", ("March", "April", "May"))
    mock_day = draw.integer("recall.mock_day", 3, 26)
    mock_minutes = draw.integer("recall.mock_minutes", 65, mock_hours * 60 - 10, 5)
    mock_sku = draw.pick("recall.mock_sku", ("cheddar_2kg", "chicken_breast", "rice", "peas"))
    closeout_days = draw.integer("recall.closeout_days", 20, 30, 5)
    sms_number = draw.integer("recall.sms_number", 60000, 89999)
    recall_ext = draw.integer("recall.ext", 580, 599)
    alert_minutes = draw.integer("recall.alert_minutes", 30, 90, 15)
    pm = product_map(draw)
    mock_product = pm[mock_sku]
    recalls = sum(1 for i in log if i.kind == "Recall")
    withdrawals = len(log) - recalls
    salmon, vegan, milk = by_key["smoked_salmon"], by_key["mayo_vegan"], by_key["semi_milk"]
    penne, haddock, berries = by_key["gf_penne"], by_key["haddock"], by_key["berries"]
    pesto, goujons, granola = by_key["pesto"], by_key["goujons"], by_key["granola"]
    mins = mock_minutes
    mock_time = f"{mins // 60} hour{'s' if mins >= 120 else ''} {mins % 60} minutes"
    short = {i.product.key: i.product.name.split(",")[0].lower() for i in log}

    parts = [
        "# Food Safety Recall Procedure",
        "",
        f"Document reference HP-FS-REC, version {version}, effective from {effective}. Owner: {hfs}, Head of "
        "Food Safety.",
        "",
        f"This procedure explains what {facts.company} does when a product we have supplied may be unsafe or "
        "may not meet its description, and what we need our customers to do. It applies to every product in "
        "our catalogue and to every depot. Recalled and withdrawn products are not handled as returns: the "
        "time limits and restocking fees of our returns policy never apply to them.",
        "",
        "## Withdrawal or recall?",
        "",
        "We use two words for two different situations, and the difference decides how fast we move and "
        "who we tell.",
        "",
        "A **withdrawal** removes a product from the supply chain before it reaches the people who would eat "
        "it. We use it when the product is still in our depots or in our customers' stores, unopened, and "
        "nobody has yet eaten it, or when the problem is one of quality or labelling that does not put "
        "anyone at risk. A withdrawn product must not be used, but nobody needs to be warned about a meal "
        "they have already had.",
        "",
        "A **recall** is used when an unsafe product may already have been served or sold to the public: "
        "diners, pupils, residents or customers of a café that resells our prepacked goods. A recall always "
        "involves the Food Standards Agency, which publishes a product recall information notice, and "
        "customers who sell our products on may be asked to display a point-of-sale notice.",
        "",
        "| | Withdrawal | Recall |",
        "|---|---|---|",
        "| When | Unsafe or faulty product not yet served or sold on | Unsafe product may have been "
        "served or sold on |",
        "| Food Standards Agency | Informed if there is any safety risk | Always notified; publishes a "
        "notice |",
        f"| Customers told within | {withdraw_notify} hours of the decision | {recall_notify} hours of the "
        "decision |",
        f"| Credit raised within | {withdraw_credit} working days of collection | {recall_credit} working "
        "days of collection |",
        "",
        "If there is any doubt about whether an affected product has been served, we treat the incident as "
        "a recall.",
        "",
        "## Who decides",
        "",
        f"The decision to withdraw or recall a product is taken by {hfs}, Head of Food Safety. When "
        f"{hfs.split()[0]} is unavailable the decision passes to {qm}, Quality Manager, and if neither can "
        f"be reached, to {md}, Managing Director. The decision is made within {decide_hours} hour"
        f"{'s' if decide_hours > 1 else ''} of a credible report reaching the food safety team, whether the "
        "report comes from a supplier, a customer, a laboratory, a local authority or the Food Standards "
        "Agency. Nobody else can cancel or delay a recall once it has been decided, including sales staff "
        "acting for a customer.",
        "",
        f"As soon as the decision is made, {hfs.split()[0]} or the deputy notifies the Food Standards Agency "
        f"and our primary authority, informs {md}, and opens an incident file. Every call, email and "
        "decision is logged in that file with its time.",
        "",
        "## The incident team",
        "",
        "| Role | Person | Responsibility |",
        "|---|---|---|",
        f"| Incident lead | {hfs} | Decides, notifies the authorities, approves all customer messages |",
        f"| Deputy lead | {qm} | Traceability: which batches went where |",
        f"| Supplier contact | {facts.supplier_manager} | Works with the supplier and gathers evidence |",
        f"| Customer contact | {facts.customer_service_manager} | Runs the calls, emails and texts to "
        "customers |",
        f"| Transport | {facts.transport_manager} | Stops loading and arranges collections |",
        f"| Credits | {facts.credit_controller} | Raises and checks the credits |",
        f"| Allergen questions | {lp['allergen_lead']} | Advises on allergen incidents |",
        "",
        "## The first hour",
        "",
        f"Within {hold_minutes} minutes of the decision, all stock of the affected batches is put on hold "
        "in our stock system at every depot, so that it cannot be picked. Pickers then move the stock into "
        "the quarantine cage, and any affected cases already on a vehicle are taken off it. The "
        f"{facts.depots[0]} "
        "depot is where all recalled and withdrawn stock from every depot is brought, counted and held "
        "until it is returned to the supplier or destroyed.",
        "",
        f"{facts.quality_manager.split()[0]}'s traceability team then produces the list of customers who "
        "received the affected batches, from the batch codes recorded at picking. That list drives every "
        "customer contact that follows.",
        "",
        "## How we contact customers",
        "",
        f"For a recall, every affected customer is told within {recall_notify} hours of the decision; for a "
        f"withdrawal, within {withdraw_notify} hours. Customers are contacted in this order, and we keep "
        "going until every affected account has acknowledged the notice:",
        "",
        "1. A phone call to the named contact on the account from our customer service team.",
        f"2. At the same time, an email and a text message from {sms_number} with the recall notice, its "
        "reference, the SKU, batch codes and dates, and what to do.",
        "3. If the named contact does not answer, we try every other contact on the account, "
        f"{callback_tries} "
        "each, and leave a message.",
        "4. For schools we also contact the local authority or trust catering manager, and for care homes "
        "the manager on duty at the home, whoever the named contact is.",
        f"5. An account that has not acknowledged within {ack_hours} hours of the first call is visited by "
        "the driver or depot manager.",
        "",
        "To acknowledge, reply YES to the text or use the link in the email. Customers who bought none of "
        "the affected batches are not contacted, but the notice is also posted on the Trade Portal "
        f"for the life of the incident. Questions during an incident go to the recall desk on {facts.phone}, "
        f"extension {recall_ext}.",
        "",
        "## What a notice contains",
        "",
        "Every withdrawal or recall notice we send sets out the same information, in the same order, so "
        "that a kitchen manager can act on it without calling us first:",
        "",
        "- the incident reference, which starts RC for a recall and WD for a withdrawal;",
        "- the product name, SKU and pack size;",
        "- the batch codes and use-by or best-before dates affected, and the dates they were delivered;",
        "- the reason, in plain words;",
        "- what to do with the stock, and whether we will collect it or ask you to destroy it;",
        "- how the credit will be raised, and who to call with questions.",
        "",
        "A genuine notice never asks for a payment, card details or a password. Our recall texts only come "
        f"from {sms_number}; if you receive a message about a Halcyon recall from anywhere else, do not "
        "follow its links, and call the recall desk to check it.",
        "",
        "## Recalls started by a supplier or the Food Standards Agency",
        "",
        "Most of our recalls begin with a supplier, and some begin with an alert published by the Food "
        f"Standards Agency. When an alert names a product we sell, {qm.split()[0]}'s team checks our batch "
        f"records within {alert_minutes} minutes to see whether any affected batch came through our depots. "
        "If it did, the incident is run under this procedure with the same timelines as one we started "
        "ourselves, and the supplier's own notice is attached to ours. If it did not, we still post a short "
        "note on the Trade Portal so that customers who see the alert know that our stock is not "
        "affected.",
        "",
        "## What you must do with the stock",
        "",
        "When you receive a withdrawal or recall notice for a product you hold:",
        "",
        "- Stop using the product at once, including any dish already prepared with it.",
        '- Move it away from other food and label it clearly "RECALLED: DO NOT USE".',
        "- Count what you hold and record it on the Recall Stock Record sent with the notice (form FS-07), "
        "with the batch codes.",
        "- Do not throw it away or return it to a driver unless the notice tells you to. We need to count "
        "it, and for some incidents the supplier or the laboratory needs it.",
        "- Keep chilled stock chilled and frozen stock frozen until it is collected.",
        "- If the notice is a recall and you sell the product on to the public, display the point-of-sale "
        f"notice we send you for {pos_days} days.",
        "",
        f"Recalled stock is collected within {collect_days} working day{'s' if collect_days > 1 else ''} by "
        "a vehicle that carries no other food. For withdrawals, the driver collects the stock on your next "
        "scheduled delivery. Where we ask you to destroy the stock instead, send a photograph of it marked "
        "as waste along with the completed form, and the credit is raised on that evidence.",
        "",
        "If you think an affected product has already been eaten and someone has become ill, call the recall "
        "desk straight away. For an allergic reaction, follow the steps in our allergen information "
        "document first: the person's safety comes before the paperwork.",
        "",
        "## Credits for recalled and withdrawn goods",
        "",
        "Every case of affected stock that you return or destroy on our instruction is credited in full at "
        "the price on your invoice. No restocking fee is charged, and the claim time limits of the returns "
        f"policy do not apply. Credits for recalled stock are raised within {recall_credit} working days of "
        f"the stock being collected or the destruction photograph being received; credits for withdrawn "
        f"stock within {withdraw_credit} working days. {facts.credit_controller}, our credit controller, "
        "checks every recall credit against the Recall Stock Record before it is issued.",
        "",
        f"We also pay reasonable disposal costs up to £{disposal_cap} per site when we ask you to destroy "
        "stock, and we send replacement stock free of charge on your next delivery where a safe batch is "
        "available. If no replacement is available and you have to buy an equivalent product elsewhere, we "
        f"refund the difference in price, up to £{replacement_cap} per incident, against a receipt. Product "
        "already used before the notice cannot be credited, because we cannot count it.",
        "",
        "## Recalls and withdrawals in 2025 and 2026",
        "",
        f"This log lists every recall and withdrawal since January 2025: {recalls} recalls and {withdrawals} "
        "withdrawals. Customers affected is the number of accounts that received the affected batches; "
        "recovered is the share of delivered stock that was returned or confirmed destroyed.",
        "",
        "| Reference | Date | SKU | Product | Type | Reason | Customers affected | Recovered |",
        "|---|---|---|---|---|---|---|---|",
        *[
            f"| {i.ref} | {i.date} | {i.product.sku} | {i.product.name} | {i.kind} | {i.reason} | "
            f"{i.customers} | {i.recovered}% |"
            for i in log
        ],
        "",
        f"The smoked salmon recall ({salmon.ref}) was our first of 2025. The supplier's own testing found "
        f"Listeria monocytogenes in one batch of {short['smoked_salmon']} ({salmon.product.sku}), and "
        f"because smoked salmon is eaten without cooking and is often served to older residents, {hfs} "
        "treated it as a recall from the first call, even though most of the batch was still in our "
        "depots. It is the reason care homes are now always contacted through the manager on duty.",
        "",
        f"The vegan mayonnaise recall ({vegan.ref}, {vegan.date}) is the one we learned most from. Egg was "
        "found in a product whose whole purpose is to be egg-free, and several of the "
        f"{vegan.customers} affected accounts had been serving it to diners with an egg allergy. No "
        "reaction was reported. Since then every supplier of a free-from product must send us allergen "
        "test results for each batch, not just once a year.",
        "",
        f"The breaded haddock recall ({haddock.ref}) followed the recipe change of {haddock_change.date}, "
        "when milk was added to the batter. The supplier used up old printed bags that did not declare milk "
        "on fillets made to the new recipe. The catalogue and our allergen matrix were correct, but the "
        "label was not, and the label is what kitchens rely on. Since this recall, "
        f"{lp['allergen_lead']} checks the first delivery of every reformulated product against the new "
        "label before it is released for picking.",
        "",
        f"Two of the withdrawals show why the word matters. The semi-skimmed milk ({milk.ref}) tasted sour "
        "but was never a safety risk, and the mixed berries "
        f"({berries.ref}) were caught in our depots and in {berries.customers} customers' freezers before "
        "any had been served. In both cases nobody had eaten an unsafe product, so no public warning was "
        f"needed. The gluten-free penne ({penne.ref}) was different: it had been served to coeliac diners "
        "before the laboratory result came back, so it was a recall.",
        "",
        f"The remaining entries were handled routinely. The pesto ({pesto.ref}) was recalled on the "
        "supplier's advice after a chipped filling head was found on its line, the chicken goujons "
        f"({goujons.ref}) were withdrawn because the outer cases carried the wrong best-before date, and "
        f"the granola ({granola.ref}) was withdrawn when customers reported soft, damp cereal from bags "
        "with a faulty seal.",
        "",
        "## Traceability tests",
        "",
        "Twice a year we run a mock recall: a batch is chosen without warning to the depots, and the team "
        "must trace every case of it, to each customer and back to the supplier, within "
        f"{mock_hours} hours. The most recent test, on {mock_day} {mock_month} 2026, traced "
        f"{mock_product.name.split(',')[0].lower()} ({mock_product.sku}) completely in {mock_time}. "
        "Customers are not contacted during a mock recall.",
        "",
        "## Closing an incident",
        "",
        f"An incident is closed when all affected stock has been accounted for and every credit raised. "
        f"{hfs.split()[0]} writes a close-out report within {closeout_days} days, covering the cause, the "
        "stock recovered, how long each step took against the timelines above, and what will change. The "
        "report goes to the managing director and the board, and its findings are added to this log.",
    ]
    return "\n".join(parts)
