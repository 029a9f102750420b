"""Allergen information: the 14 allergens, declarations, "may contain", 2026 recipe changes, the allergen
matrix and what to do after an allergic reaction."""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.documents.company_history import local_people
from cairn_action.sample.documents.product_catalogue import Product, product_map
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "allergen-information.md"

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip

ALLERGENS = (
    ("Celery", "Celery stalks, leaves, seeds and celeriac; often in stock cubes, soups and spice mixes"),
    ("Cereals containing gluten", "Wheat (including spelt and Khorasan), rye, barley and oats"),
    ("Crustaceans", "Prawns, crab, lobster, langoustine and crayfish"),
    ("Eggs", "Hen, duck and quail eggs; often in mayonnaise, batters, glazes and pasta"),
    ("Fish", "All fish, including fish sauce and Worcestershire sauce made with anchovy"),
    ("Lupin", "Lupin flour and seeds; sometimes in gluten-free bread and pastry"),
    ("Milk", "Cow's, goat's and sheep's milk and everything made from them, including butter and whey"),
    ("Molluscs", "Mussels, oysters, clams, squid and octopus; oyster sauce"),
    ("Mustard", "Mustard seeds, powder, leaves and prepared mustard; often in dressings and marinades"),
    ("Tree nuts", "Almonds, hazelnuts, walnuts, cashews, pecans, Brazil nuts, pistachios, macadamias"),
    ("Peanuts", "Peanuts, groundnut oil and peanut flour"),
    ("Sesame", "Sesame seeds, tahini, sesame oil and houmous"),
    ("Soya", "Soya beans, tofu, edamame, soy sauce, soya flour and lecithin from soya"),
    ("Sulphur dioxide and sulphites", "Above 10 mg per kg or per litre; dried fruit, wine, some sausages"),
)


@dataclass(frozen=True)
class Change:
    product: Product
    change: str
    effect: str
    date: str


def _date(draw: Draw, key: str, month: int) -> tuple[int, str]:
    day = draw.integer(key, 2, 27)
    return month * 100 + day, f"{day} {MONTHS[month - 1]} 2026"


def recipe_changes(draw: Draw) -> list[Change]:
    """The 2026 reformulations, oldest first (also used by the recall procedure)."""
    pm = product_map(draw)
    rows = [
        ("mayo_light", "Mustard flour removed from the recipe", "No longer contains mustard", 1),
        (
            "brownie",
            "Soya lecithin in the chocolate replaced with sunflower lecithin",
            "No longer contains soya",
            1,
        ),
        ("haddock", "New batter made with buttermilk", "Now contains milk", 2),
        ("gravy", "Barley malt extract added for colour", "Now contains barley as well as wheat", 2),
        ("sausages", "Mustard seed removed from the seasoning", "No longer contains mustard", 2),
    ]
    dated = []
    for key, change, effect, month in rows:
        order, date = _date(draw, f"allergen.change.{key}", month)
        dated.append((order, Change(pm[key], change, effect, date)))
    return [c for _, c in sorted(dated, key=lambda pair: pair[0])]


def render(draw: Draw, facts: Facts) -> str:
    pm = product_map(draw)
    lp = local_people(draw, facts)
    changes = recipe_changes(draw)
    hfs = facts.head_of_food_safety
    lead = lp["allergen_lead"]
    reviewed = _date(draw, "allergen.reviewed", draw.integer("allergen.reviewed_month", 3, 8))[1]
    reconfirm = draw.pick("allergen.reconfirm_months", (6, 12))
    notice_weeks = draw.integer("allergen.notice_weeks", 4, 8)
    label_weeks = draw.integer("allergen.label_weeks", 6, 10)
    matrix_ext = draw.integer("allergen.matrix_ext", 520, 549)
    safety_ext = draw.integer("allergen.safety_ext", 550, 579)
    matrix_days = draw.integer("allergen.matrix_days", 2, 4)
    ooh = f"07700 900{draw.integer('allergen.ooh', 100, 999)}"
    callback_min = draw.integer("allergen.callback_min", 20, 45, 5)
    quarantine_hours = draw.integer("allergen.quarantine_hours", 2, 4)
    collect_hours = draw.pick("allergen.collect_hours", (24, 48))
    lab_days = draw.integer("allergen.lab_days", 3, 6)
    report_days = draw.integer("allergen.report_days", 8, 12)
    complaints_2025 = draw.integer("allergen.complaints_2025", 9, 21)
    confirmed_2025 = draw.integer("allergen.confirmed_2025", 1, 3)
    train_days = draw.integer("allergen.train_days", 10, 30, 5)
    refresh_months = draw.pick("allergen.refresh_months", (12, 18, 24))
    swab_weeks = draw.integer("allergen.swab_weeks", 2, 4)
    gf_depot = facts.depots[2]
    term_send = draw.pick(
        "allergen.term_send", ("in the first week of each school term", "at each half term")
    )
    by_key = {c.product.key: c for c in changes}
    haddock, gravy, light = by_key["haddock"], by_key["gravy"], by_key["mayo_light"]

    may_contain = [
        (pm["granola"], "peanuts", "packed on a line that also packs peanut clusters"),
        (pm["brioche_buns"], "sesame", "baked in the same bakery as the sesame-topped buns"),
        (pm["brownie"], "tree nuts", "made in a kitchen that also bakes a hazelnut blondie"),
        (pm["spring_rolls"], "crustaceans", "made in a factory that also makes prawn spring rolls"),
        (pm["vegan_ice"], "milk", "made on a line that also produces dairy ice cream"),
    ]

    parts = [
        "# Allergen Information and Policy",
        "",
        f"This document explains how {facts.company} manages and declares the 14 food allergens, what our "
        '"may contain" statements mean, which products changed recipe in 2026, how to get our allergen '
        "matrix, and what to do if someone has an allergic reaction to food that contains one of our "
        f"products. It is owned by {hfs}, Head of Food Safety, and was last reviewed on {reviewed}. "
        f"Day-to-day questions go to {lead}, our allergen and technical coordinator.",
        "",
        "We supply ingredients and prepacked products to kitchens. The information here tells you what is "
        "in the products we deliver; you remain responsible for the allergen information you give your own "
        "diners, residents and pupils about the dishes you make with them.",
        "",
        "## The 14 allergens",
        "",
        "UK law names 14 allergens that must be declared whenever they are used as an ingredient. Every "
        "product we sell is checked against all 14 before it is listed, and the catalogue shows the ones "
        "each product contains.",
        "",
        "| Allergen | What it covers |",
        "|---|---|",
        *[f"| {name} | {covers} |" for name, covers in ALLERGENS],
        "",
        "Two points cause more questions than the rest. Oats are declared as a gluten cereal: our porridge "
        f"oats ({pm['oats'].sku}) and barista oat drink ({pm['oat_barista'].sku}) are shown as containing "
        "gluten because standard oats are grown and milled alongside wheat. And sulphites only have to be "
        "declared above 10 mg per kg or per litre, which is why the dried apricots are labelled with "
        "sulphites and our fresh produce is not. None of our current lines contains lupin as an ingredient.",
        "",
        "## How allergens are declared",
        "",
        "Allergens are declared in four places, and all four should agree. If you ever find that they do "
        "not, the label on the pack in your hand is the one to follow, and we want to hear about the "
        "difference the same day.",
        "",
        "1. **On the label.** Every prepacked product lists its ingredients with the 14 allergens "
        "emphasised, usually in bold. This is the legal declaration.",
        "2. **In the product catalogue.** The allergens column shows the allergens each SKU contains as "
        'ingredients. It does not show "may contain" statements.',
        "3. **On the specification sheet.** Each SKU has a specification sheet with the full ingredient "
        "list, allergens and any precautionary statement.",
        "4. **In the allergen matrix.** A spreadsheet of every SKU against the 14 allergens, described "
        "below.",
        "",
        "Before we list a product, the supplier completes our allergen questionnaire and sends a signed "
        f"specification, which {lead} checks against the label artwork. Every supplier must re-confirm its "
        f"allergen declarations every {reconfirm} months, and must tell us about any recipe change at least "
        f"{notice_weeks} weeks before the changed product reaches our depots. {facts.supplier_manager}, "
        "our supplier manager, suspends any supplier that misses a re-confirmation until it is received.",
        "",
        "Loose produce such as potatoes, onions and lemons is sold without an ingredient label. Where a "
        f"loose product is itself one of the 14, as celery ({pm['celery'].sku}) is, the delivery note "
        "says so.",
        "",
        "If you prepack food on your own premises for direct sale, for example sandwiches made in the "
        "morning and sold from a chiller the same day, you must label it with a full ingredient list and "
        "emphasised allergens. Our specification sheets give you the information you need to do that, but "
        "the label is your responsibility.",
        "",
        '## "May contain" labelling',
        "",
        'A "may contain" statement, also called precautionary allergen labelling, warns that an allergen '
        "is not an ingredient but might be present through cross-contact in the factory. We only accept a "
        '"may contain" statement from a supplier when its risk assessment shows a real risk that cannot '
        "be removed by cleaning or scheduling. We do not allow it as a blanket disclaimer, and we challenge "
        "suppliers who put every allergen on the list.",
        "",
        'These lines currently carry a "may contain" statement:',
        "",
        "| SKU | Product | May contain | Why |",
        "|---|---|---|---|",
        *[
            f"| {p.sku} | {p.name} | {allergen.capitalize()} | {why.capitalize()} |"
            for p, allergen, why in may_contain
        ],
        "",
        'Treat a "may contain" statement as meaning that the product is not suitable for someone with that '
        f"allergy. For example, the granola ({pm['granola'].sku}) lists tree nuts as an ingredient and "
        'peanuts only as a "may contain", but neither is safe for a pupil with a peanut allergy. Note that '
        f"the sesame-topped buns ({pm['sesame_buns'].sku}) contain sesame as an ingredient, while the "
        f"brioche buns ({pm['brioche_buns'].sku}) only carry a warning.",
        "",
        "## Gluten-free products",
        "",
        "A product we describe as gluten-free contains no more than 20 mg of gluten per kg, which is the "
        f"legal limit for the claim. Our gluten-free lines are the gluten-free pork sausages "
        f"({pm['gf_sausages'].sku}), the gluten-free white loaf ({pm['gf_loaf'].sku}) and the gluten-free "
        f"penne ({pm['gf_penne'].sku}). At every depot they are stored on dedicated top-shelf racking, "
        f"above and apart from flour and bread, and the {gf_depot} depot has a separate segregated "
        "gluten-free area. They are picked into sealed totes and never loaded under a sack of flour.",
        "",
        "Racking and totes used for gluten-free stock are swabbed for gluten every "
        f"{swab_weeks} weeks. A positive swab stops gluten-free picking at that depot until the area has "
        "been cleaned and a repeat swab is clear.",
        "",
        "## Recipe changes in 2026",
        "",
        "When a supplier changes a recipe, the old and new versions can both be in kitchens for several "
        f"weeks. We flag every change on the Trade Portal for {label_weeks} weeks, write to every "
        "account that has bought the product in the last six months, and update the allergen matrix in "
        "the next monthly edition. These products have changed so far this year:",
        "",
        "| SKU | Product | What changed | Allergen effect | From |",
        "|---|---|---|---|---|",
        *[f"| {c.product.sku} | {c.product.name} | {c.change} | {c.effect} | {c.date} |" for c in changes],
        "",
        f"Two of these changes add an allergen, which is the direction that matters most. From "
        f"{haddock.date}, the breaded haddock ({haddock.product.sku}) contains milk in the batter: a "
        "kitchen that has been serving it to a milk-allergic resident as a safe option must stop. From "
        f"{gravy.date}, the gravy granules ({gravy.product.sku}) contain barley as well as wheat, "
        "which does not change their suitability for a coeliac diner but does matter to anyone avoiding "
        "barley specifically.",
        "",
        f"The other three changes remove an allergen. The light mayonnaise ({light.product.sku}) has "
        f"been mustard-free since {light.date}, but the real mayonnaise ({pm['mayo_real'].sku}) still "
        "contains mustard, so check which tub you have open. The brownie traybake is now soya-free, and the "
        "premium pork sausages no longer contain mustard, though they still contain wheat and sulphites.",
        "",
        "Stock made to the old recipe is labelled with the old recipe. Always follow the label on the pack "
        "you are using, not the catalogue or the matrix, until your old stock is used up.",
        "",
        "## Requesting the allergen matrix",
        "",
        "The allergen matrix is a spreadsheet listing every SKU we sell against the 14 allergens, with "
        'separate columns for "contains" and "may contain". It is published on the first working day '
        "of each month and is free to every account holder. Schools and care homes on a supply contract "
        f"are sent it automatically {term_send}.",
        "",
        f"To request the matrix, email allergens@{facts.email_domain} with your account number, or call "
        f"{facts.phone} and ask for extension {matrix_ext}. Say whether you want the whole range or only "
        f"the products you have bought in the last 90 days. We send it within {matrix_days} working days, "
        "as an Excel file and a PDF. If you need it sooner because of a specific diner, say so and we will "
        "answer the question about that product the same day.",
        "",
        "We do not produce allergen information for your dishes. A dish matrix depends on your recipes and "
        "your kitchen, and only you can complete it, but the product matrix is designed to make that job "
        "quicker.",
        "",
        "## If someone has an allergic reaction",
        "",
        "This section is safety-critical. Follow it in order, and make sure everyone who takes deliveries "
        "or serves food on your site knows where it is.",
        "",
        "1. **Look after the person first.** If there are any signs of anaphylaxis, such as swelling of the "
        "throat or lips, difficulty breathing, wheezing, feeling faint or collapse, call 999 and say "
        '"anaphylaxis". If the person has an adrenaline auto-injector, help them use it. Do not wait for '
        "the symptoms to get worse, and do not move them to a different room to wait.",
        "2. **Keep the food.** Set aside everything left of the dish and of each of our products used in "
        "it, with the packaging and labels. Do not throw anything away, even if it looks harmless. Keep "
        "chilled products chilled and frozen products frozen.",
        "3. **Record the details.** Write down the SKU, batch or lot code, use-by or best-before date and "
        "delivery date of each of our products in the dish, and what the person was told about allergens "
        "when they ordered.",
        f"4. **Call our food safety line.** Ring {facts.phone}, extension {safety_ext}, between 07:00 and "
        "18:00 on weekdays, or call the main number and choose the food safety option. At any other time, "
        f"ring the duty food safety officer on {ooh}. Do not report an allergic reaction by email or "
        "through the online portal.",
        "",
        f"Once you have reported a reaction, the duty food safety officer will call you back within "
        f"{callback_min} minutes to take the details. {hfs} leads every allergic reaction investigation "
        "personally. If we cannot rule out that one of our products contained an undeclared allergen, the "
        f"batch is quarantined at all three depots within {quarantine_hours} hours of your call, and we "
        f"collect the retained product and packaging from you within {collect_hours} hours. Laboratory "
        f"results normally take {lab_days} working days. You will receive a written report of our findings "
        f"within {report_days} working days of your call.",
        "",
        "If the investigation finds an undeclared allergen in one of our products, the product is "
        "recalled under our food safety recall procedure and every customer who bought the batch is told. "
        "You may also need to report the incident to the environmental health team at your local authority, "
        "and we will help you with the information they ask for.",
        "",
        f"In 2025 we received {complaints_2025} complaints of an allergic reaction. None was caused by an "
        "undeclared allergen in one of our products; most were traced to cross-contact in the customer's "
        "kitchen or to a recipe change on the customer's side. In "
        f"{confirmed_2025} of them, though, the cause was ours: a customer service adviser had read out the "
        "declaration of a similarly named product. Advisers now read back the SKU before they read out any "
        "allergen information.",
        "",
        "## Training",
        "",
        f"Every depot and customer service employee completes allergen awareness training within "
        f"{train_days} days of joining, and a refresher every {refresh_months} months, run by "
        f"{lp['training_lead']}. Customer service advisers are trained not to give an opinion about whether "
        "a product is safe for a particular diner; they read the declaration for the SKU and, if the "
        f"question goes further, pass it to {lead}.",
        "",
        "## Contacts",
        "",
        "| Need | Contact |",
        "|---|---|",
        f"| Allergic reaction, weekdays 07:00 to 18:00 | {facts.phone}, extension {safety_ext} |",
        f"| Allergic reaction, out of hours | {ooh} |",
        f"| Allergen matrix | allergens@{facts.email_domain} or extension {matrix_ext} |",
        f"| Product allergen questions | {lead}, allergen and technical coordinator |",
        f"| Allergen policy | {hfs}, Head of Food Safety |",
    ]
    return "\n".join(parts)
