"""Company history: founding, milestones, depots, people, awards and values.

`local_people` names the staff that only this group of documents mentions (depot managers, the
allergen lead and so on), so the allergen and recall documents can refer to the same people.
"""

from __future__ import annotations

from cairn_action.sample.draw import FIRST_NAMES, SURNAMES, Draw
from cairn_action.sample.facts import Facts

PATH = "company-history.md"

LOCAL_ROLES = (
    "chair",
    "finance_director",
    "operations_director",
    "allergen_lead",
    "depot_manager_1",
    "depot_manager_2",
    "depot_manager_3",
    "training_lead",
)


def _facts_people(facts: Facts) -> list[str]:
    return [
        *facts.founders,
        facts.head_of_food_safety,
        facts.quality_manager,
        facts.credit_controller,
        facts.transport_manager,
        facts.customer_service_manager,
        facts.managing_director,
        facts.data_protection_officer,
        facts.supplier_manager,
    ]


def local_people(draw: Draw, facts: Facts) -> dict[str, str]:
    """Names for LOCAL_ROLES, sharing neither a first name nor a surname with the shared staff."""
    taken = _facts_people(facts)
    firsts = [
        f
        for f in draw.shuffled("history.people:first", FIRST_NAMES)
        if f not in {n.split()[0] for n in taken}
    ]
    lasts = [
        s for s in draw.shuffled("history.people:last", SURNAMES) if s not in {n.split()[1] for n in taken}
    ]
    return {role: f"{firsts[i]} {lasts[i]}" for i, role in enumerate(LOCAL_ROLES)}


def depot_years(draw: Draw, facts: Facts) -> tuple[int, int, int]:
    """The years the three depots opened (main depot first)."""
    second = draw.integer("history.depot2_year", max(facts.founded_year + 7, 1999), 2008)
    third = draw.integer("history.depot3_year", 2012, 2019)
    return facts.founded_year, second, third


def render(draw: Draw, facts: Facts) -> str:
    lp = local_people(draw, facts)
    f1, f2 = facts.founders
    main, second, third = facts.depots
    y0, y2, y3 = depot_years(draw, facts)
    first_van = draw.pick(
        "history.first_van", ("a second-hand Bedford van", "a rented Transit van", "an old Leyland box van")
    )
    first_customers = draw.integer("history.first_customers", 9, 23)
    first_product = draw.pick(
        "history.first_product", ("farmhouse cheese and eggs", "eggs, butter and bacon", "bread and dairy")
    )
    reefer_year = draw.integer("history.reefer_year", y0 + 3, y0 + 6)
    schools_year = draw.integer("history.schools_year", y2 + 1, y2 + 4)
    care_year = draw.integer("history.care_year", schools_year + 2, schools_year + 5)
    brc_year = draw.integer("history.brc_year", 2009, 2013)
    online_year = draw.integer("history.online_year", 2014, 2018)
    founders_retire = draw.integer("history.founders_retire", 2016, 2021)
    md_joined = draw.integer("history.md_joined", 2003, 2010)
    hfs_joined = draw.integer("history.hfs_joined", 2011, 2017)
    qm_joined = draw.integer("history.qm_joined", 2012, 2020)
    tm_joined = draw.integer("history.tm_joined", 2008, 2016)
    ev_vans = draw.integer("history.ev_vans", 6, 14)
    ev_month = draw.pick("history.ev_month", ("March", "April", "May", "June"))
    staff_now = draw.integer("history.staff_now", 180, 320, 5)
    customers_now = draw.integer("history.customers_now", 1400, 2600, 50)
    sizes = [
        draw.integer(f"history.depot_size.{i}", lo, hi, 500)
        for i, (lo, hi) in enumerate(((62000, 90000), (38000, 55000), (24000, 36000)))
    ]
    vans = [
        draw.integer(f"history.depot_vans.{i}", lo, hi)
        for i, (lo, hi) in enumerate(((24, 38), (12, 22), (8, 16)))
    ]
    vehicles_now = sum(vans)
    award_2025 = draw.pick(
        "history.award_2025",
        ("Regional Foodservice Wholesaler of the Year", "Independent Wholesaler of the Year (East)"),
    )
    award_2025_body = draw.pick(
        "history.award_2025_body",
        ("the Federation of Wholesale Distributors", "the Foodservice Supply Awards"),
    )
    award_2026, award_2026_why = draw.pick(
        "history.award_2026",
        (
            ("Fleet Safety Award", "a fall in reversing incidents across the fleet"),
            (
                "Cold Chain Excellence Award",
                "a year without a single chilled delivery refused for temperature",
            ),
            ("Green Fleet Award", "the electric van trial on our urban routes"),
        ),
    )
    matrix_year = draw.integer("history.matrix_year", schools_year + 1, schools_year + 4)
    rewrite_year = draw.integer("history.rewrite_year", hfs_joined, hfs_joined + 2)
    share_rest = draw.integer("history.share_rest", 30, 40)
    share_school = draw.integer("history.share_school", 18, 26)
    share_care = draw.integer("history.share_care", 14, 22)
    share_cafe = 100 - share_rest - share_school - share_care
    suppliers = draw.integer("history.suppliers", 140, 230, 5)
    local_share = draw.integer("history.local_share", 30, 45)
    creamery = draw.pick(
        "history.creamery", ("Hollow Brook Creamery", "Westcombe Vale Dairy", "Ashgrove Farm Dairy")
    )
    apprentice_year = draw.integer("history.apprentice_year", 2012, 2019)
    apprentices = draw.integer("history.apprentices", 6, 12)
    academy_drivers = draw.integer("history.academy_drivers", 35, 80)
    academy_year = draw.integer("history.academy_year", 2017, 2021)
    award_2026_month = draw.pick("history.award_2026_month", ("February", "March", "May"))
    school_award_year = draw.integer("history.school_award_year", 2019, 2024)
    brc_grade = draw.pick("history.brc_grade", ("AA", "AA+", "A"))
    charity = draw.pick(
        "history.charity", ("FareShare", "a regional food bank network", "the county's community larders")
    )
    tonnes = draw.integer("history.donated_tonnes", 40, 95)
    anniversary = 2026 - facts.founded_year
    unit_name = draw.pick("history.unit", ("Station Yard", "Mill Lane", "Tannery Road"))

    milestones = [
        f"| {year} | {text} |"
        for year, text in sorted(
            [
                (y0, f"Business founded in {main} by {f1} and {f2}"),
                (reefer_year, "First refrigerated delivery vehicle"),
                (y2, f"{second} depot opens"),
                (schools_year, "First school catering contract, with a local authority catering service"),
                (brc_year, "First BRCGS Storage and Distribution certificate"),
                (
                    care_year,
                    "Dedicated care-home service launched, with texture-modified and fortified lines",
                ),
                (online_year, "Trade Portal online ordering launched for all accounts"),
                (y3, f"{third} depot opens"),
                (founders_retire, "Founders step back from day-to-day management"),
                (2025, f"Named {award_2025}"),
                (2026, f"First {ev_vans} electric delivery vans enter service"),
            ],
            key=lambda row: row[0],
        )
    ]

    parts = [
        f"# Our Story: {facts.company}",
        "",
        f"{facts.company} is an independent food wholesaler supplying restaurants, cafés, schools and care "
        f"homes from three depots. We employ around {staff_now} people, deliver to about {customers_now} "
        f"customer accounts, and run {vehicles_now} vehicles. This page tells the story of how a one-van "
        f"business from {main} became what it is today, who runs it, and what we believe in. In 2026 we "
        f"mark {anniversary} years of trading.",
        "",
        "## How it started",
        "",
        f"{f1} and {f2} founded the business in {y0}, working from a rented unit on {unit_name} in {main}. "
        f"{f1} had spent ten years as a chef in hotel kitchens and was tired of suppliers who sent whatever "
        f"was in the warehouse; {f2} had run the accounts for a dairy and knew how thin a wholesaler's "
        f"margins could be. They started with {first_van}, {first_product}, and {first_customers} customers, "
        "most of them pubs and tea rooms within twenty miles of the unit.",
        "",
        f"The early rule, which {f1} still repeats, was that nobody would be sent a product they had not "
        "asked for without a phone call first. That rule became our substitution policy, and it is the "
        f"reason our catalogue tells customers so plainly which products look alike. In {reefer_year} the "
        "business bought its first refrigerated vehicle, which let it carry chilled meat and dairy over "
        "longer routes for the first time.",
        "",
        "## Milestones",
        "",
        "| Year | Milestone |",
        "|---|---|",
        *milestones,
        "",
        "The move into schools changed the business more than any other. School caterers asked for "
        "allergen information in a form they could use across a whole menu, which led to the allergen matrix "
        "we still publish every month, and for traceability records that stood up to a local authority "
        "audit. The care-home service followed, built around smaller, more frequent drops and products for "
        "residents with swallowing difficulties.",
        "",
        "## Our depots",
        "",
        f"Our head office is at the {main} depot, which is also our largest site and the hub for trunking "
        f"stock to the other two. The {second} depot opened in {y2} to serve customers further west, and "
        f"the {third} depot followed in {y3}, built from the start with separate chilled and frozen "
        "chambers and a segregated area for gluten-free stock.",
        "",
        "| Depot | Opened | Floor area (sq ft) | Vehicles | Depot manager |",
        "|---|---|---|---|---|",
        f"| {main} (head office) | {y0} | {sizes[0]:,} | {vans[0]} | {lp['depot_manager_1']} |",
        f"| {second} | {y2} | {sizes[1]:,} | {vans[1]} | {lp['depot_manager_2']} |",
        f"| {third} | {y3} | {sizes[2]:,} | {vans[2]} | {lp['depot_manager_3']} |",
        "",
        f"The depot managers are {lp['depot_manager_1']} at {main}, {lp['depot_manager_2']} at {second} "
        f"and {lp['depot_manager_3']} at {third}. The {main} site has moved once. The original unit on "
        f"{unit_name} was outgrown within a decade, and the business moved to its present purpose-built "
        f"site on the edge of {main} in {y2 - 2}. "
        f"All three depots hold BRCGS Storage and Distribution certification; at the most recent audit the "
        f"{main} depot achieved grade {brc_grade}.",
        "",
        "## The people who run Halcyon today",
        "",
        f"{facts.managing_director} is our managing director. {facts.managing_director.split()[0]} joined in "
        f"{md_joined} as an operations planner, ran the {second} depot for several years, and took over "
        f"the day-to-day running of the company when the founders stepped back in {founders_retire}. "
        f"{f1} remains a shareholder, and {lp['chair']} chairs the board as a non-executive.",
        "",
        f"{facts.head_of_food_safety} joined as head of food safety in {hfs_joined}, having previously "
        "worked as an environmental health officer, and is responsible for allergen control, product "
        f"recalls and our certification audits. {facts.quality_manager} joined the technical team in "
        f"{qm_joined} and became quality manager two years later. {facts.transport_manager}, our transport "
        f"manager since {tm_joined}, led the introduction of the electric vans.",
        "",
        "| Role | Name |",
        "|---|---|",
        f"| Managing director | {facts.managing_director} |",
        f"| Chair (non-executive) | {lp['chair']} |",
        f"| Finance director | {lp['finance_director']} |",
        f"| Operations director | {lp['operations_director']} |",
        f"| Head of food safety | {facts.head_of_food_safety} |",
        f"| Quality manager | {facts.quality_manager} |",
        f"| Allergen and technical coordinator | {lp['allergen_lead']} |",
        f"| Transport manager | {facts.transport_manager} |",
        f"| Customer service manager | {facts.customer_service_manager} |",
        f"| Supplier manager | {facts.supplier_manager} |",
        f"| Credit controller | {facts.credit_controller} |",
        f"| Data protection officer | {facts.data_protection_officer} |",
        f"| Training lead | {lp['training_lead']} |",
        "",
        "## Awards and recognition",
        "",
        f"In 2025 we were named {award_2025} by {award_2025_body}. The judges singled out our allergen "
        "matrix and the way our customer service team handles product questions from school cooks. In "
        f"{award_2026_month} 2026 the transport team won the {award_2026}, recognising "
        f"{award_2026_why}. Earlier, in {school_award_year}, a "
        "county school catering service named us its supplier of the year for reliability through a hard "
        "winter, when our drivers kept every school kitchen supplied through a week of snow.",
        "",
        "## Food safety through the years",
        "",
        f"Our first written recall procedure dates from {brc_year}, when the first BRCGS audit required one. "
        f"{facts.head_of_food_safety} rewrote it in {rewrite_year}, separating withdrawals from recalls and "
        "setting the customer notification times we still work to, and it has been revised after every "
        "incident since. The allergen matrix was first published in "
        f"{matrix_year}, at the request of school caterers, as a single printed sheet covering about 300 "
        "lines; today it is a monthly spreadsheet covering the whole catalogue.",
        "",
        "The recalls of 2025 and 2026 are listed, with what we learned from each, in our food safety recall "
        "procedure. None of them led to a reported illness, but the vegan mayonnaise recall in particular "
        "changed how we buy free-from products: we now ask for allergen test results on every batch rather "
        "than relying on an annual declaration.",
        "",
        "## Customers then and now",
        "",
        f"The first {first_customers} customers were pubs and tea rooms. Today restaurants and pubs account "
        f"for {share_rest}% of our sales, schools for {share_school}%, care homes for {share_care}% and "
        f"cafés, workplace canteens and other caterers for the remaining {share_cafe}%. Schools and care "
        "homes are our fastest-growing customers, and they are also the most demanding about allergens, "
        "traceability and delivery times, which has made the whole business better at all three.",
        "",
        "## Suppliers",
        "",
        f"We buy from about {suppliers} suppliers, and {local_share}% of what we spend goes to producers "
        f"within 60 miles of a depot. Our longest-standing supplier is {creamery}, which has supplied our "
        f"cheese since {y0}. Every supplier is approved and audited by our supplier manager, "
        f"{facts.supplier_manager}, together with the technical team, and every food supplier must hold a "
        "recognised food safety certificate or pass our own audit before its first delivery.",
        "",
        "## Training and careers",
        "",
        f"Our apprenticeship scheme started in {apprentice_year} and takes on {apprentices} apprentices a "
        "year in warehousing, transport planning and customer service. Several of our depot managers began "
        f"as apprentices or pickers. Since {academy_year} our driver academy has paid for "
        f"{academy_drivers} warehouse staff to gain their large goods vehicle licence. Training across the "
        f"company is coordinated by {lp['training_lead']}, and every new starter spends their first day "
        f"with the food safety team before they set foot in a chamber.",
        "",
        "## Electric vans and the environment",
        "",
        f"In {ev_month} 2026 the first {ev_vans} electric vans entered service on the shorter urban routes "
        f"from {main} and {second}. Each depot now has charging points, and the vans carry chilled and "
        "ambient goods in separate compartments. We aim to replace every diesel van on routes under 120 "
        "miles by the end of 2029, while keeping diesel refrigerated lorries for the longer rural routes "
        "until a practical alternative exists.",
        "",
        f"Surplus stock that is safe but cannot be sold goes to {charity}. In 2025 we donated {tonnes} "
        "tonnes of food this way, mostly short-dated ambient goods and produce. Food subject to a recall or "
        "withdrawal is never donated.",
        "",
        "## Our values",
        "",
        "We try to run the business on a few plain principles, and we ask new staff to read them on their "
        "first day.",
        "",
        "- **Safe food first.** No delivery target, sales figure or deadline outranks a food safety concern. "
        "Any member of staff can stop a product leaving a depot if they think it is unsafe.",
        "- **Tell customers the truth.** If we are short, late or have made a mistake, we say so early and "
        "say what we will do about it.",
        "- **No surprises in the delivery.** We do not send a substitute without asking, and we never "
        "substitute across an allergen difference.",
        "- **Look after the people who do the work.** Drivers and pickers set the standard our customers "
        "see, and they are trained, paid and listened to accordingly.",
        "- **Stay independent.** We have turned down offers to join national buying groups so that we can "
        "keep choosing our own suppliers.",
        "",
        "## Still family-minded",
        "",
        f"Although neither founder now works in the business day to day, both still visit the {main} depot. "
        f"{f2} presents the long-service awards each December, and {f1} judges the staff cook-off held at "
        "every depot in the summer. Staff who reach twenty years with the company receive an extra week of "
        "annual leave in that year.",
    ]
    return "\n".join(parts)
