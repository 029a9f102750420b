"""The safety-critical cold-chain policy: temperature limits, probe checks, breaches and records.

The driver handbook and the supplier guide read this module's `figures` so that their temperature
figures and the food-safety extension agree with the policy.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.documents.delivery_schedules_and_cutoffs import unwrap
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "cold-chain-and-temperature-handling.md"


@dataclass(frozen=True)
class ColdChainFigures:
    reference: str
    chilled_load_max: int
    chilled_reject: int
    meat_load_max: int
    meat_reject: int
    fish_reject: int
    frozen_reject: int
    ice_cream_reject: int
    precool_chilled: int
    precool_frozen: int
    precool_minutes: int
    unload_minutes: int
    compartment_alarm: int
    probe_tolerance: float
    records_months: int
    logger_interval: int
    chill_setpoint: int
    chill_alarm: int
    freezer_setpoint: int
    freezer_alarm: int
    alarm_response_minutes: int
    decision_hours: int
    fridge_service_hours: int
    food_safety_ext: int
    quality_ext: int
    probe_every_pallets: int


def figures(draw: Draw) -> ColdChainFigures:
    chill_setpoint = draw.pick("coldchain.chill_setpoint", (2, 3))
    return ColdChainFigures(
        reference=f"FS-{draw.integer('coldchain.ref', 10, 29)}",
        chilled_load_max=draw.pick("coldchain.chilled_load_max", (4, 5)),
        chilled_reject=draw.pick("coldchain.chilled_reject", (7, 8)),
        meat_load_max=draw.pick("coldchain.meat_load_max", (3, 4)),
        meat_reject=draw.pick("coldchain.meat_reject", (5, 6)),
        fish_reject=draw.pick("coldchain.fish_reject", (3, 4)),
        frozen_reject=draw.pick("coldchain.frozen_reject", (-15, -14)),
        ice_cream_reject=draw.pick("coldchain.ice_cream_reject", (-18, -17)),
        precool_chilled=draw.pick("coldchain.precool_chilled", (2, 3)),
        precool_frozen=draw.pick("coldchain.precool_frozen", (-20, -22)),
        precool_minutes=draw.pick("coldchain.precool_minutes", (30, 45)),
        unload_minutes=draw.pick("coldchain.unload_minutes", (15, 20, 30)),
        compartment_alarm=draw.pick("coldchain.compartment_alarm", (6, 7)),
        probe_tolerance=draw.pick("coldchain.probe_tolerance", (0.5, 1.0)),
        records_months=draw.pick("coldchain.records_months", (18, 24, 36)),
        logger_interval=draw.pick("coldchain.logger_interval", (5, 10)),
        chill_setpoint=chill_setpoint,
        chill_alarm=chill_setpoint + draw.pick("coldchain.chill_alarm_gap", (3, 4)),
        freezer_setpoint=draw.pick("coldchain.freezer_setpoint", (-22, -25)),
        freezer_alarm=draw.pick("coldchain.freezer_alarm", (-18, -20)),
        alarm_response_minutes=draw.pick("coldchain.alarm_response", (15, 20, 30)),
        decision_hours=draw.pick("coldchain.decision_hours", (2, 4)),
        fridge_service_hours=draw.pick("coldchain.fridge_service_hours", (1000, 1500, 2000)),
        food_safety_ext=draw.integer("coldchain.food_safety_ext", 300, 339),
        quality_ext=draw.integer("coldchain.quality_ext", 340, 379),
        probe_every_pallets=draw.pick("coldchain.probe_every_pallets", (2, 3)),
    )


def render(draw: Draw, facts: Facts) -> str:
    c = figures(draw)
    version = draw.pick("coldchain.version", ("3.2", "3.4", "4.0", "4.1"))
    review = draw.pick("coldchain.review", ("January", "March", "April"))
    return unwrap(f"""
# Cold Chain and Temperature Handling Policy

*Document {c.reference}, version {version}. Owner: {facts.head_of_food_safety}, Head of Food Safety.
Approved by {facts.quality_manager}, Quality Manager. Reviewed every {review}. This is a safety-critical
procedure: a departure from it must be reported the same day.*

{facts.short_name} moves chilled and frozen food from our depots at {", ".join(facts.depots[:2])} and
{facts.depots[2]} to kitchens that feed schoolchildren, hospital patients and care-home residents, many of
whom are at higher risk from food poisoning than the general public. Temperature control is the single
most important thing we do to keep that food safe. This policy sets the temperature limits for every
product group, the checks made when goods are loaded and delivered, the action to take when a limit is
breached and the records that prove we did it. It applies to depot staff, drivers, agency workers and
anyone else who handles temperature-controlled stock on our behalf.

## Responsibilities

The Head of Food Safety, {facts.head_of_food_safety}, owns this policy and decides what happens to any
product that has been out of its temperature range. The Quality Manager, {facts.quality_manager},
audits compliance each month and signs off probe calibration records. Depot shift managers make sure
that the loading checks are done and recorded. The Transport Manager, {facts.transport_manager}, is
responsible for the refrigeration equipment on our vehicles and its servicing, and drivers are
responsible for the checks on their own vehicle and at every drop.

Nobody is ever criticised for stopping a load or rejecting a product because of a temperature concern,
even if the product later proves to be safe. The person on the spot makes the call; the investigation
comes afterwards.

## Temperature ranges and limits

The law sets the outer limits. Chilled food that supports the growth of harmful bacteria must be held
at 8°C or below, and quick-frozen food must be kept at -18°C or colder, with only brief upward
fluctuations of no more than 3°C allowed during distribution. Our own limits are tighter, and they
differ between the moment goods are loaded at the depot and the moment they are handed to the customer.

| Product group | Examples | Target range | Maximum at loading | Reject at delivery if warmer than |
|---|---|---|---|---|
| Chilled, general | Dairy, cooked meats, fresh pasta, prepared salads | 0°C to 5°C
| {c.chilled_load_max}°C | {c.chilled_reject}°C |
| Fresh meat and poultry | Whole birds, joints, mince, sausages | 0°C to 4°C | {c.meat_load_max}°C
| {c.meat_reject}°C |
| Fresh fish and shellfish | Fillets, whole fish, cooked prawns | 0°C to 2°C, packed on ice | 2°C
| {c.fish_reject}°C |
| Frozen | Frozen vegetables, chips, meat, fish, pastry | -18°C or colder | -18°C | {c.frozen_reject}°C |
| Ice cream and frozen desserts | Ice cream tubs, sorbets, frozen gateaux | -20°C or colder | -20°C
| {c.ice_cream_reject}°C |
| Temperature-sensitive ambient | Chocolate, cooking oils, some sauces | 10°C to 20°C | 25°C
| 25°C |

The gap between the loading maximum and the rejection point is deliberate. Each time a door opens the
air in a compartment warms, and the outer packs of a pallet follow it. A chilled product loaded at
{c.chilled_load_max}°C has room to absorb the door openings of a full route without reaching
{c.chilled_reject}°C. Goods loaded warmer than the loading maximum have no such margin, which is why
they never leave the depot.

Ice cream has a stricter rejection point than other frozen food because partial thawing and refreezing
spoils its texture and can hide a food-safety problem. Fresh fish is rejected at anything above
{c.fish_reject}°C, the strictest of our chilled limits, because the bacteria that cause spoilage and
histamine poisoning in fish grow quickly even at fridge temperatures.

## Vehicle refrigeration checks

Every delivery vehicle has a refrigeration unit serving separate frozen and chilled compartments, each
with its own air-temperature sensor, a display in the cab and a data logger that records the
compartment temperature every {c.logger_interval} minutes. Before the first load of the day the driver
switches the unit on and pre-cools the compartments. The chilled compartment must reach
{c.precool_chilled}°C or below, and the frozen compartment {c.precool_frozen}°C or below, and both must
have run for at least {c.precool_minutes} minutes before any stock goes on. Loading into a warm
compartment is the most common cause of a failed delivery temperature, so the loading bay team will
not load a vehicle whose pre-cool has not been signed off.

As part of the daily walkaround check the driver also confirms that:

- the cab display shows both compartments at their set-points and no alarm is active;
- door seals and curtains are intact, and the bulkheads between compartments are locked in place;
- the drain hoses are clear and there is no ice build-up on the evaporators;
- the data logger shows the current time and date, and its printer has paper.

The compartment alarm sounds in the cab if the chilled compartment's air temperature rises above
{c.compartment_alarm}°C for more than ten minutes. Refrigeration units are serviced every
{c.fridge_service_hours:,} running hours, or sooner if an alarm or a slow pre-cool suggests a fault; a
vehicle whose unit is overdue for service is taken off the road until it is done. If the unit fails on
the road, the driver stops delivering chilled and frozen goods, keeps the doors shut and calls the
Transport Office, who will send a replacement vehicle and decide whether the remaining drops can be
completed from it.

## Probe checks at loading

Air temperature tells us how the compartment is working; product temperature tells us whether the food
is safe. At loading, the checker probes between packs, with the probe sandwiched between two cases or
packs without piercing them, on at least one pallet or cage in every
{("two", "three")[c.probe_every_pallets - 2]} for each temperature group, choosing packs from the
outside of the pallet where warming shows first. Any reading above the loading maximum stops the load.
The pallet goes back into the cold store, the next pallet is checked, and the shift manager decides
whether to re-pick the order from other stock.

A core probe, which pierces the product, is used only when a between-pack reading is close to a limit
and the result would change the decision. The probed pack is then written off and never sent to a
customer. Loading temperatures are recorded on the loading sheet against the vehicle registration, the
route number and the time.

## Probe checks at delivery

At every drop that includes chilled or frozen goods, the driver takes a between-pack reading from one
item in each temperature group and enters it on the handheld before asking for a signature. The
customer is welcome to watch or to take their own reading; if the two readings differ, the higher one is
recorded. The compartment doors are opened only for as long as it takes to unload, and chilled and
frozen goods must not be out of refrigeration for more than {c.unload_minutes} minutes in total at any
drop, including the time spent waiting for a signature or for a cold room to be unlocked.

If the first reading is above the rejection point for that product group, the driver takes a second
reading from a different pack of the same product. Two readings above the limit mean the product is
rejected; a single reading above the limit followed by one inside it means the product is accepted and
both readings are recorded.

## Probe care and calibration

Each probe thermometer carries an identity number on its case, and the number is recorded with every
reading it takes. Probes are cleaned and disinfected with a food-safe probe wipe before and after each
use, and between raw and ready-to-eat products.

Every probe is checked weekly in iced water, where it must read 0°C within ±{c.probe_tolerance}°C. Once
a month it is also checked in boiling water, where it must read 100°C within ±1°C. A probe that fails
either check is withdrawn straight away and replaced from the depot stock, and every reading it took
since its last good check is reviewed by the Quality Manager. Probe batteries are replaced every six
months whether or not they appear flat.

## Rejection thresholds and the amber band

Readings fall into three bands for chilled products. A reading at or below the loading maximum is green:
the product is accepted. A reading above the loading maximum but not above the rejection point is amber:
at delivery the product is accepted, but the reading is reported to the Transport Office before the end
of the shift so that the vehicle and route can be checked. A reading above the rejection point is red:
the product is rejected and the breach procedure below applies. For general chilled lines such as
dairy and cooked meats, green runs up to {c.chilled_load_max}°C, amber from just above
{c.chilled_load_max}°C to {c.chilled_reject}°C, and anything warmer than {c.chilled_reject}°C is
rejected.

Frozen products are judged against a single line at delivery, with no amber band: a frozen product that
probes at {c.frozen_reject}°C or colder is accepted, and anything warmer is rejected, as is any frozen
product showing signs of thawing and refreezing, such as ice crystals inside the pack, soft edges or
packs frozen together. Chilled products whose packaging is swollen or whose seal has failed are rejected
whatever their temperature.

## What to do when a limit is breached

A breach is any reading in the red band, any compartment alarm that lasts more than ten minutes, and
any failure of a cold store or vehicle refrigeration unit. When one happens:

1. Stop. Do not load, deliver or sell the affected product, and keep compartment and cold-store doors
closed.
2. Take a second reading from a different pack to confirm the first.
3. Label the affected product with a red HOLD label showing the date, time, reading and your name, and
keep it in the coldest available space, separate from other stock.
4. Telephone the Head of Food Safety, {facts.head_of_food_safety}, on extension {c.food_safety_ext}. Out
of hours, the depot duty manager takes the call and contacts the Head of Food Safety.
5. Record the breach on the handheld or the depot incident log before the end of your shift.

The Head of Food Safety decides within {c.decision_hours} hours of the call whether held product is
released, returned to the supplier or destroyed, using the data logger record to establish how long it
was out of range. Held product is never released on the strength of a single reading back inside the
limits. If a customer has already received product from a load that later turns out to have been out of
range, Customer Service contacts them the same day to arrange collection and credit.

## Depot cold stores

Chill stores at every depot are set to {c.chill_setpoint}°C, and their alarms sound if the air
temperature reaches {c.chill_alarm}°C. Frozen stores are set to {c.freezer_setpoint}°C and alarm at
{c.freezer_alarm}°C. Alarms are routed to the shift manager's phone and, out of hours, to the security
control room, and must be responded to within {c.alarm_response_minutes} minutes. Cold-store doors are
kept shut except when goods are moving, and strip curtains must never be tied back.

Goods received from suppliers are probed at goods-in against the acceptance limits in the supplier
onboarding guide, which are stricter than our delivery rejection points because the product still has
our whole distribution journey ahead of it.

## Records we keep

Loading sheets, delivery readings, data-logger downloads, cold-store alarm logs, probe calibration
records and breach reports are all kept for {c.records_months} months. Data loggers are downloaded
automatically when the vehicle returns to its depot, and a printout is given to any customer who asks
for one at the time of delivery. Environmental health officers and customers' auditors may inspect the
records by arrangement with the Quality Manager, who can be reached on extension {c.quality_ext}.

## Training and competence

No one probes, loads or delivers temperature-controlled goods until they have completed our cold-chain
induction and been observed doing it correctly three times. Refresher training is given every year, and
immediately after any breach that involved the person concerned. Drivers are also shown how to read the
cab display and the data logger, and how to clear a blocked drain hose safely.
""")
