"""The driver handbook: checks, hours, proof of delivery, refusals, closed sites, accidents, contacts."""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.documents.cold_chain_and_temperature_handling import (
    figures as cold_chain_figures,
)
from cairn_action.sample.documents.delivery_schedules_and_cutoffs import (
    figures as delivery_figures,
)
from cairn_action.sample.documents.delivery_schedules_and_cutoffs import unwrap
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "driver-handbook.md"

REASONS = (
    ("damaged", "damaged in transit. Crushed, torn, leaking or wet packaging, or broken contents."),
    ("short_dated", "short-dated. Less life left than the customer's agreed minimum, or past its date."),
    ("not_ordered", "not ordered. The wrong product, the wrong pack size or a duplicate of another line."),
    ("temperature", "temperature. Used whenever a product probes outside the cold-chain acceptance limits."),
    ("no_access", "no access. The site is closed or the goods entrance cannot be reached."),
    ("over", "over-delivered. More cases than the delivery note shows."),
    ("other", "other refusal. Describe the reason in the notes field in the customer's own words."),
)


@dataclass(frozen=True)
class DriverFigures:
    shift_start: str
    duty_cap: int
    weekly_cap: int
    walkaround_minutes: int
    closed_site_wait: int
    accident_report_hours: int
    green_score: int
    van_limit: int
    idle_minutes: int
    transport_manager_ext: int
    insurer_line: str
    codes: dict[str, str]


def figures(draw: Draw) -> DriverFigures:
    order = draw.shuffled("drivers.reason_codes", [key for key, _ in REASONS])
    return DriverFigures(
        shift_start=draw.pick("drivers.shift_start", ("04:30", "05:00", "05:30")),
        duty_cap=draw.pick("drivers.duty_cap", (11, 12)),
        weekly_cap=draw.pick("drivers.weekly_cap", (50, 52, 55)),
        walkaround_minutes=draw.pick("drivers.walkaround_minutes", (15, 20)),
        closed_site_wait=draw.pick("drivers.closed_site_wait", (10, 15, 20)),
        accident_report_hours=draw.pick("drivers.accident_report_hours", (12, 48)),
        green_score=draw.pick("drivers.green_score", (80, 85, 90)),
        van_limit=draw.pick("drivers.van_limit", (62, 65, 68)),
        idle_minutes=draw.pick("drivers.idle_minutes", (2, 3, 5)),
        transport_manager_ext=draw.integer("drivers.tm_ext", 250, 259),
        insurer_line=f"0800 {draw.integer('drivers.insurer_a', 100, 999)} "
        f"{draw.integer('drivers.insurer_b', 1000, 9999)}",
        codes={key: f"RC{order.index(key) + 1}" for key, _ in REASONS},
    )


def render(draw: Draw, facts: Facts) -> str:
    f = figures(draw)
    cold = cold_chain_figures(draw)
    deliveries = delivery_figures(draw, facts)
    codes = f.codes
    edition = draw.pick("drivers.edition", ("January 2026", "February 2026", "March 2026"))
    reason_lines = "\n".join(
        f"- {codes[key]}, {text}"
        for key, text in sorted(REASONS, key=lambda reason: int(codes[reason[0]][2:]))
    )
    contacts = [
        ("Transport Office (routes, delays, breakdowns)", f"Extension {deliveries.transport_ext}"),
        (f"{facts.transport_manager}, Transport Manager", f"Extension {f.transport_manager_ext}"),
        (f"{facts.head_of_food_safety}, Head of Food Safety", f"Extension {cold.food_safety_ext}"),
        ("Customer Service (customer queries at a drop)", "Option 2 on the main number"),
        ("Duty manager, out of hours", "Option 9 on the main number"),
        ("Insurer's 24-hour accident line", f.insurer_line),
    ]
    contact_rows = "\n".join(f"| {who} | {number} |" for who, number in contacts)
    return unwrap(f"""
# Driver Handbook

*{facts.company}. Issued by {facts.transport_manager}, Transport Manager. Edition: {edition}. Keep this
handbook in your cab and read it alongside the Cold Chain and Temperature Handling Policy.*

Welcome to the driving team. Our drivers are the only people from {facts.short_name} most customers ever
meet, and the condition and temperature of what you hand over is, for them, the quality of our whole
business. This handbook covers what we expect of you from the moment you book on until you hand your
keys back: checking your vehicle, keeping within your hours, getting proof of delivery, dealing with
refusals and closed sites, and what to do if something goes wrong. If anything in it is unclear, ask
the Transport Office before you leave the depot, not after.

## Your working day

Most delivery shifts start at {f.shift_start}, with outlying routes sometimes starting earlier so that
vehicles reach the first drop in the customer's window. Book on at the transport desk, collect your
handheld, probe thermometer and route sheet, and check the notices board for route changes, road
closures and customer messages. Your route sheet shows the order of drops, each customer's window, any
timed deliveries, key-holding instructions and access notes.

Halcyon never rosters a driver for more than {f.duty_cap} hours on duty in a single day, or more than
{f.weekly_cap} hours in any week, even where the law would allow more. If a route is running late and
finishing it would take you over either limit, call the Transport Office: they will arrange for the
remaining drops to be covered. Never skip a break to finish a route.

## Drivers' hours and working time

Which rules apply depends on the vehicle you drive. Our rigid lorries are over 3.5 tonnes and come under
the assimilated EU drivers' hours rules, recorded on the digital tachograph:

- no more than 9 hours' driving in a day, extendable to 10 hours twice a week;
- no more than 56 hours' driving in a week, and no more than 90 hours in any two consecutive weeks;
- a break of at least 45 minutes after 4.5 hours' driving, which may be split into 15 minutes followed
by 30 minutes;
- a daily rest of at least 11 hours, which may be reduced to 9 hours no more than three times between
weekly rest periods.

Our 3.5-tonne vans come under the GB domestic rules: no more than 10 hours' driving and 11 hours on duty
in a day. Every driver also comes under the working time rules, which limit working time to an average
of 48 hours a week and 60 hours in any single week, and require a 30-minute break after six hours'
work.

Insert your driver card before you move the vehicle, use the correct mode switch for other work and
breaks, and make a manual entry for any work done away from the vehicle. Your tachograph data is
downloaded at least every 28 days and checked weekly by the Transport Office, who will talk to you about
any infringement.

## Daily vehicle checks

Before you take a vehicle out you must carry out a walkaround check, which takes about
{f.walkaround_minutes} minutes and is recorded on the handheld. Walk round the whole vehicle and check:

- lights, indicators, reflectors and number plates, including the rear marker boards;
- tyres for tread depth, cuts, bulges and inflation, and wheel nut indicators for movement;
- mirrors, the windscreen, wipers and washers, and the horn;
- the bodywork, doors, shutter and tail-lift, including the tail-lift's safety chains and controls;
- fuel, oil, AdBlue and coolant, and any leaks under the vehicle;
- the refrigeration unit, compartment doors, seals and bulkheads, as set out in the cold-chain policy.

Report any defect on the handheld before you leave, however small. A defect that makes the vehicle
unsafe or illegal, such as a damaged tyre, a failed brake light or a tail-lift that will not lock,
makes the vehicle off-road until it is repaired; the Transport Office will find you another vehicle.
The refrigeration unit must be switched on and pre-cooling while you do the rest of your check, so that
it has run for the full pre-cool time by the time the loading team is ready for you.

## Loading and leaving the depot

Stay with your vehicle while it is loaded and check that the number of cages and pallets matches your
route sheet. Frozen goods go in the frozen compartment, chilled goods in the chilled compartment and
ambient goods in the ambient section; never let a loader put chilled stock in the ambient section to
save space, even for a short route. Check the load is secure and the bulkheads are locked before you
close the doors. Sign the loading sheet only when you are satisfied.

## At the drop: proof of delivery

At each drop, unload only that customer's goods, close the compartment doors between trips, and keep
chilled and frozen goods out of refrigeration for no longer than the cold-chain policy allows. Take the
delivery temperature readings and enter them on the handheld before you ask for a signature.

Proof of delivery is the customer's signature on the handheld with their name printed in capitals,
given by someone the account lists as authorised to sign. The handheld time-stamps and geotags every
signature. If the customer wants to check the goods before signing, let them; if they sign "unchecked",
record that on the handheld as well. Give the customer their copy of the delivery note, and a
temperature printout if they ask for one.

For key-holding and lock-box customers, there is no one to sign. Photograph the goods inside the cold
room or store with the handheld, showing the door and the labels, lock up exactly as the access notes
describe and record the time you locked up. Never take a key or code away from the site.

## Refused, short and damaged deliveries

A customer may refuse some or all of a delivery. Do not argue, and never try to persuade a customer to
accept something they have refused. Record every refused line on the handheld with one of the reason
codes below, take a photograph where the problem can be seen, and ask the customer to sign for the
goods they have accepted.

{reason_lines}

Refused chilled and frozen goods go straight back into the correct compartment. They must never be
offered to another customer on the route, even if that customer has ordered the same product, because
the depot has to check them before they can be sold again. If a product is refused under
{codes["temperature"]}, follow the breach steps in the cold-chain policy as well: put a red HOLD label
on it and telephone the Head of Food Safety before you carry on with the route.

Short deliveries, where something on the delivery note is not on the vehicle, are recorded on the
handheld so the customer is credited automatically. Do not promise a customer a redelivery of missing
goods: tell them Customer Service will call them, and the Transport Office will decide.

## When a site is closed

If you arrive and the site is locked, nobody answers, or the person present is not authorised to sign,
ring the customer's contact number from the handheld. If there is no answer, wait {f.closed_site_wait}
minutes at the site and try once more before you record a failed delivery under {codes["no_access"]}.
Photograph the closed entrance so the customer can see when you called, and tell the Transport Office
before you leave.

Chilled and frozen goods are never left unattended at a closed site, however the customer asks you to
leave them, unless they have a signed key-holding agreement and you can put the goods inside their cold
room. Ambient goods may be left in a safe place only if the account notes show a signed safe-place
authority and the place is described there; otherwise bring them back too. The Transport Office decides
whether to try again later in the day; the customer is told about the charge for redelivery by Customer
Service, not by you.

## Accidents, incidents and near misses

If you are involved in a road accident, however minor:

1. Stop as soon as it is safe, switch on your hazard lights and make the scene safe.
2. If anyone is injured, call 999 first. You must also report the accident to the police within 24
hours if you cannot exchange details at the scene.
3. Exchange your name, the vehicle registration and Halcyon's insurance details with anyone involved.
Do not admit liability or apologise for causing the accident.
4. Photograph the scene, the vehicles and any damage with the handheld, and press the dashcam event
button so the footage is saved.
5. Call the Transport Office, then the insurer's accident line.

Complete a written accident report on the handheld within {f.accident_report_hours} hours of the
accident. The Transport Office downloads the dashcam and telematics data for the claim the same day.
Injuries to yourself or others while loading or unloading, including falls from the tail-lift, are
reported in the same way. Near misses, such as a pallet falling from a cage or a pedestrian stepping out
behind the vehicle while you reverse, must be reported before the end of your shift: they are how we
prevent the next accident. After any accident you may be asked to take a drug and alcohol test.

## Telematics, cameras and driving standards

Every vehicle carries a telematics unit and a forward-facing dashcam. The telematics unit scores your
driving each week on speed, harsh braking, harsh acceleration, cornering and idling. The Transport
Manager, {facts.transport_manager}, reviews every driver's score with them each month; a score of
{f.green_score} or more is green, and drivers who stay in the green for a full quarter are recognised
in the quarterly awards. A driver below the green score for two months in a row is offered a coaching
drive with a driver trainer.

Our lorries are limited to 56 mph, as the law requires, and our vans are limited to {f.van_limit} mph.
Switch the engine off if you will be stationary for more than {f.idle_minutes} minutes, except where the
refrigeration unit is driven by the engine and the load needs it. You must not use a hand-held phone
while driving, and you may use a hands-free phone only when the vehicle is parked with the engine off.
What the telematics and dashcam record, and how long it is kept, is explained in the privacy notice.

## Licences, fitness and conduct

We check every driver's licence with the DVLA when you join, and at regular intervals afterwards as
described in the privacy notice. You must tell the Transport Manager straight away about any new
endorsement, any pending prosecution for a driving offence, and any medical condition or medication
that could affect your driving. Keep your Driver CPC card and your driver card with you whenever you
drive. Drink and drugs have no place anywhere in our business: our limit at work is zero, which is
lower than the legal limit for driving.

Wear your uniform, hi-visibility vest and safety boots at every drop, and your fleece and gloves in the
frozen compartment. Be polite to customers and the public, and never smoke or vape in or near the
vehicle. Customers' premises are their workplaces, and many of them are schools and care homes:
follow their signing-in rules, wear your ID badge and never go beyond the delivery area unless you are
asked to.

## Useful numbers

Extensions and options are reached through the main number, {facts.phone}.

| Who | Number |
|---|---|
{contact_rows}

The Transport Manager, {facts.transport_manager}, is responsible for this handbook, for the fleet and
for all drivers. Questions about how your licence, tachograph, telematics or dashcam information is
used can be raised with the Data Protection Officer, {facts.data_protection_officer}.
""")
