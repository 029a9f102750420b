"""Customer guide to delivery zones, days, order cut-offs, timed deliveries and failed deliveries.

The holiday calendar and the driver handbook read this module's `figures` so that cut-off times,
charges and the transport office extension agree across the corpus.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "delivery-schedules-and-cutoffs.md"

AREAS = (
    "northern villages",
    "coastal parishes",
    "business parks and industrial estates",
    "hospital and college quarter",
    "western market towns",
    "eastern commuter villages",
    "river valley and hill farms",
    "southern rural loop",
)
DAY_PATTERNS = (
    "Monday to Friday",
    "Monday, Wednesday and Friday",
    "Tuesday, Thursday and Saturday",
    "Tuesday and Friday",
    "Monday and Thursday",
)
OUTLYING_DAY_PATTERNS = ("Tuesday and Friday", "Monday and Thursday", "Wednesday only")
WINDOWS = ("06:00-11:00", "07:00-12:00", "08:00-13:00", "10:00-15:00", "11:00-16:00")


@dataclass(frozen=True)
class Zone:
    code: str
    depot: str
    area: str
    days: str
    window: str
    outlying: bool


@dataclass(frozen=True)
class DeliveryFigures:
    zones: tuple[Zone, ...]
    next_day_cutoff: str
    outlying_cutoff: str
    standard_cutoff: str
    saturday_cutoff: str
    monday_cutoff: str
    large_order_cases: int
    large_order_cutoff: str
    extra_day_charge: float
    second_drop_charge: float
    second_address_charge: float
    two_hour_charge: float
    one_hour_charge: float
    early_drop_charge: float
    timed_free_spend: int
    timed_late_minutes: int
    redelivery_charge: float
    cancel_time: str
    failed_limit: int
    failed_weeks: int
    eta_minutes: int
    transport_ext: int
    special_skus: tuple[int, int, int]


def zone_prefix(depot: str) -> str:
    return depot[:3].upper()


def hhmm_minus(time: str, hours: int) -> str:
    """'16:30' minus `hours` whole hours, as 'HH:MM'."""
    hour, minute = (int(part) for part in time.split(":"))
    return f"{hour - hours:02d}:{minute:02d}"


def figures(draw: Draw, facts: Facts) -> DeliveryFigures:
    zones: list[Zone] = []
    for index, depot in enumerate(facts.depots):
        count = 4 if index == 0 else 3
        areas = draw.shuffled(f"schedules.areas.{index}", AREAS)
        for number in range(1, count + 1):
            outlying = number == count
            if number == 1:
                area, days = "town centre and ring road", "Monday to Saturday"
            else:
                area = areas[number - 2]
                patterns = OUTLYING_DAY_PATTERNS if outlying else DAY_PATTERNS
                days = draw.pick(f"schedules.days.{index}.{number}", patterns)
            if outlying:
                area = f"{area} (outlying)"
            window = draw.pick(f"schedules.window.{index}.{number}", WINDOWS)
            zones.append(Zone(f"{zone_prefix(depot)}-{number}", depot, area, days, window, outlying))
    two_hour = draw.money("schedules.two_hour", 8.5, 14.5, 0.5)
    return DeliveryFigures(
        zones=tuple(zones),
        next_day_cutoff=draw.pick("schedules.next_day_cutoff", ("15:30", "16:00", "16:30", "17:00")),
        outlying_cutoff=draw.pick("schedules.outlying_cutoff", ("12:00", "12:30", "13:00", "13:30")),
        standard_cutoff=draw.pick("schedules.standard_cutoff", ("18:00", "19:00", "20:00")),
        saturday_cutoff=draw.pick("schedules.saturday_cutoff", ("11:00", "11:30", "12:00")),
        monday_cutoff=draw.pick("schedules.monday_cutoff", ("09:30", "10:00", "10:30")),
        large_order_cases=draw.integer("schedules.large_cases", 40, 80, 10),
        large_order_cutoff=draw.pick("schedules.large_cutoff", ("13:00", "14:00")),
        extra_day_charge=draw.money("schedules.extra_day", 30.0, 45.0, 2.5),
        second_drop_charge=draw.money("schedules.second_drop", 18.0, 26.0, 1.0),
        second_address_charge=draw.money("schedules.second_address", 6.5, 9.5, 0.5),
        two_hour_charge=two_hour,
        one_hour_charge=two_hour + draw.money("schedules.one_hour_extra", 5.0, 9.0, 0.5),
        early_drop_charge=draw.money("schedules.early_drop", 18.0, 28.0, 1.0),
        timed_free_spend=draw.integer("schedules.timed_free_spend", 1500, 3000, 250),
        timed_late_minutes=draw.pick("schedules.timed_late", (10, 15, 20)),
        redelivery_charge=draw.money("schedules.redelivery", 20.0, 35.0, 2.5),
        cancel_time=draw.pick("schedules.cancel_time", ("14:00", "15:00")),
        failed_limit=draw.pick("schedules.failed_limit", (2, 3)),
        failed_weeks=draw.pick("schedules.failed_weeks", (4, 6, 8)),
        eta_minutes=draw.pick("schedules.eta_minutes", (30, 45, 60)),
        transport_ext=draw.integer("schedules.transport_ext", 210, 249),
        special_skus=(
            draw.integer("schedules.sku.ham", 4100, 4199),
            draw.integer("schedules.sku.turbot", 4200, 4299),
            draw.integer("schedules.sku.cake", 4300, 4399),
        ),
    )


def unwrap(text: str) -> str:
    """Join hard-wrapped source lines: one line per paragraph, list item, table row or heading."""
    lines: list[str] = []
    for raw in text.strip("\n").splitlines():
        line = raw.strip()
        prev = lines[-1] if lines else ""
        new_block = not line or line.startswith(("#", "|", "- ")) or re.match(r"\d+\. ", line)
        open_row = prev.startswith("|") and not prev.endswith("|")
        if line and (open_row or (prev and not new_block and not prev.startswith(("#", "|")))):
            lines[-1] = f"{prev} {line}"
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def render(draw: Draw, facts: Facts) -> str:
    f = figures(draw, facts)
    main, second, third = facts.depots
    town_zones = ", ".join(z.code for z in f.zones if z.code.endswith("-1"))
    outlying_zones = ", ".join(z.code for z in f.zones if z.outlying)
    zone_rows = "\n".join(f"| {z.code} | {z.depot} | {z.area} | {z.days} | {z.window} |" for z in f.zones)
    ham, turbot, cake = f.special_skus
    pick_start = draw.pick("schedules.pick_start", ("21:00", "21:30", "22:00"))
    loading_start = draw.pick("schedules.loading_start", ("03:30", "04:00", "04:30"))
    on_time_pct = draw.pick("schedules.on_time_pct", (92, 94, 95))
    stairs = draw.pick("schedules.stairs", (10, 12, 15))
    school_window = draw.pick("schedules.school_window", ("09:15 and 11:15", "09:30 and 11:30"))
    return unwrap(f"""
# Delivery Schedules and Order Cut-off Times

*Customer guide issued by the Transport Office, {facts.company}. Applies to every delivery made from
Monday 5 January 2026 until it is replaced.*

{facts.short_name} delivers chilled, frozen and ambient food to restaurants, cafés, schools and care
homes from three depots: {main} (our main depot, next to head office), {second} and {third}. Every
customer account belongs to one delivery zone, and your zone decides which days we come to you, the
window your driver aims for and the latest time you can place an order. This guide explains how the
zones work, lists the cut-off times for each kind of order, prices the timed-delivery options and sets
out what happens when a delivery cannot be completed.

Holiday changes are published separately in the Holiday and Closure Calendar. On the dates it covers,
the calendar takes priority over anything in this guide.

## How the delivery network is organised

Each depot runs its own fleet of multi-temperature vehicles. Every vehicle has three compartments,
frozen, chilled and ambient, separated by movable bulkheads, so one drop brings your whole order
whatever it contains. Routes are planned overnight by our routing system from the orders received by
the cut-off, picking starts at {pick_start}, and the first vehicles are loaded from {loading_start}.
Because routes are rebuilt every night, the order of drops on a route changes from day to day; the
window for your zone does not.

Your zone code is printed at the top of every invoice and delivery note. It starts with the first three
letters of your depot's name, so {zone_prefix(main)}-2 is a {main} zone and {zone_prefix(second)}-2 is
a {second} zone. Zones ending in -1 ({town_zones}) are town-centre zones served six days a week. The
highest-numbered zone at each depot ({outlying_zones}) is an outlying zone: it covers the furthest
villages and farms, is visited on fewer days and has an earlier next-day cut-off, because the vehicles
for those runs are loaded first and leave before the town vans.

## Zones and delivery days by depot

| Zone | Depot | Area covered | Delivery days | Standard window |
|---|---|---|---|---|
{zone_rows}

If your business sits on the boundary between two zones, we assign it to the zone whose vehicle passes
closest. You can ask to move zone when you open your account or at any time afterwards; the Transport
Office will agree the move only if the new route has room at the time of day you need, and a move
takes effect from the Monday after it is agreed.

We do not deliver on Sundays from any depot. A zone that lists Saturday among its delivery days
receives a Saturday delivery in every week except the stock-take weekends shown in the Holiday and
Closure Calendar.

## Order cut-off times

The cut-off is the latest time an order can be placed, or changed, for a given delivery. Orders placed
through the Trade Portal are timed by our system, and a confirmation email shows the delivery date the
order has been booked for. Telephone orders are taken by Customer Service during its opening hours, but
a telephone order only meets a cut-off if the call has finished by the cut-off time, so please ring in
good time rather than in the last few minutes.

| Order type | Delivered on | Order by |
|---|---|---|
| Next-day delivery, town-centre and standard zones | Your zone's next delivery day
| {f.next_day_cutoff} the previous working day |
| Next-day delivery, outlying zones | Your zone's next delivery day
| {f.outlying_cutoff} the previous working day |
| Standard 48-hour orders and special-order lines | Two working days later
| {f.standard_cutoff} two working days before |
| Saturday delivery (zones ending -1 and Saturday zones) | Saturday | {f.saturday_cutoff} on Friday |
| Monday delivery | Monday | {f.monday_cutoff} on Saturday |
| Large orders of more than {f.large_order_cases} cases | Your zone's next delivery day
| {f.large_order_cutoff} the previous working day |

For most customers the next-day cut-off is {f.next_day_cutoff} on the working day before delivery. The
outlying zones close earlier, at {f.outlying_cutoff}, because their vehicles are the first to be loaded.
An order placed after the cut-off is not lost: it rolls forward to your zone's next delivery day, and
the confirmation email says so.

Standard 48-hour ordering applies to special-order lines, which we buy in for you rather than hold in
stock. Their codes start with SO-, for example SO-{ham} (whole bone-in Serrano ham), SO-{turbot} (whole
line-caught turbot, by weight) and SO-{cake} (celebration sheet cake, made to order). Place these by
{f.standard_cutoff} two working days before the delivery you want them on; they cannot be added to a
next-day order after that point.

Weekend ordering works differently. For a Saturday delivery, order by {f.saturday_cutoff} on Friday.
Orders for Monday can be placed until {f.monday_cutoff} on Saturday through the Trade Portal.
Customer Service is closed at weekends, so if you prefer to order by phone for Monday, your call must be
finished by the normal next-day cut-off on Friday.

Orders of more than {f.large_order_cases} cases need a vehicle planned around them, so they must be in
by {f.large_order_cutoff} the previous working day, whichever zone you are in. The same applies when a
single order includes more than two pallets of frozen stock.

## Delivery windows

Each zone has a standard window, shown in the zone table. It is the period in which your driver aims to
arrive, not an appointment: in 2025 we arrived inside the standard window on {on_time_pct}% of drops,
and when we expect to be late our routing system sends you a revised time automatically.

Some kinds of customer have windows of their own, agreed when the account is opened:

- **Schools.** We do not deliver while pupils are arriving or leaving. School drops are made before
08:00 or between {school_window}, and never during the lunch service.
- **Care homes.** Drivers avoid protected mealtimes, which we take to be 11:30 to 13:30 and 16:30 to
18:00 unless the home tells us otherwise, so that staff are not called away from residents to sign
for goods.
- **Restaurants with lock-box or key-holding arrangements.** If you have signed a key-holding
agreement, we can deliver before you open, putting chilled and frozen goods straight into your cold
rooms. Key-holding is available in town-centre zones only.

## Timed deliveries

If you need us at a particular time, for a function, a kitchen with no storage or a site with
restricted access, you can book a timed delivery. Timed slots are sold in the Trade Portal when you check
out, up to the next-day cut-off, and are subject to availability on your route.

| Option | Charge per delivery |
|---|---|
| Two-hour timed window | £{f.two_hour_charge:.2f} |
| One-hour timed window | £{f.one_hour_charge:.2f} |
| Early drop, before 07:00 | £{f.early_drop_charge:.2f} |

Accounts whose spending averages more than £{f.timed_free_spend:,} a week over the previous eight weeks
receive two-hour timed windows at no charge; one-hour windows and early drops are still charged. If we
arrive more than {f.timed_late_minutes} minutes outside a timed window that you have paid for, the
charge is refunded to your account automatically without you having to claim it.

## Extra deliveries and other delivery charges

The minimum order value and the below-minimum delivery charge depend on your account and are set out in
the Pricing Tiers and Volume Discounts document. The charges below are for services beyond your normal
scheduled delivery, and they are added whatever the value of the order.

| Service | Charge |
|---|---|
| Extra delivery on a day your zone is not normally served | £{f.extra_day_charge:.2f} |
| Second delivery on one of your zone's normal days | £{f.second_drop_charge:.2f} |
| Delivery to a second address on the same account, per drop | £{f.second_address_charge:.2f} |

An extra delivery on a day your zone is not normally served has to be fitted onto a neighbouring zone's
route, so it must be ordered by the standard 48-hour cut-off and depends on that route having room; the
Transport Office will confirm it by the end of the following working day. Extra deliveries are not
available in the outlying zones, whose vehicles have no spare time. A second delivery on one of your
normal days is usually made by the afternoon van and can be ordered up to 10:00 on the day itself.
Deliveries to a second address, such as a satellite kitchen or an events venue, are made on the first
address's route and need the second address registered on your account before the first order.

## When a delivery cannot be completed

A delivery fails when the driver cannot hand the goods over: the site is closed, nobody with authority
to sign is available, the vehicle cannot get access, or the whole order is refused. When your site is
closed, the driver waits for a short time and tries to telephone you before moving on; the driver
handbook sets out exactly what drivers do at a closed site.

If a delivery fails for a reason within your control, we charge £{f.redelivery_charge:.2f} to deliver
the goods again. There is no charge when the failure was ours, for example a vehicle breakdown or a
delivery outside the window. Chilled and frozen goods from a failed delivery go back into the depot's
cold stores on the same day; they are redelivered on your next delivery day only if the vehicle's
temperature record for the whole journey is within limits, otherwise they are destroyed and the order
is re-picked from fresh stock. Ambient goods are simply carried forward to your next delivery.

You can cancel a delivery without charge until {f.cancel_time} on the working day before it is due. If
{("two", "three")[f.failed_limit - 2]} deliveries to the same site fail within {f.failed_weeks} weeks,
the account is placed on
call-ahead status: the driver will ring before leaving the previous drop, and an unanswered call means
the delivery is held back rather than attempted.

## Access, parking and unloading

Our vehicles range from 3.5-tonne vans in the town-centre zones to 18-tonne rigid lorries on the
outlying runs. Please tell us about weight limits, low bridges, narrow lanes and height barriers when
you open your account, and again whenever they change, so that the routing system sends a vehicle that
fits. Drivers deliver to your goods entrance or kitchen door at ground level. They will carry goods down
or up a single flight of up to {stairs} steps; anything further, such as a cellar reached by a second
flight, must be agreed in advance.

Drivers will not leave a vehicle on double red lines, in a bus lane or across a pedestrian crossing, so
tell us where it can stop. Parking fines incurred because a site had no legal place to stop for an
agreed delivery may be passed on to the customer.

## Tracking your delivery and who to contact

On the morning of delivery you receive a text message with your estimated arrival time, and a second
message about {f.eta_minutes} minutes before the driver reaches you. Both messages contain a tracking
link that shows the vehicle's progress on the day's route.

For orders, changes and cancellations, call Customer Service on {facts.phone} (option 1 for orders,
option 2 for deliveries) or email {facts.orders_email}. Questions about routes, zones and access are
handled by the Transport Office on extension {f.transport_ext}, which is staffed from 04:00 on delivery
days. If a delivery problem is not resolved to your satisfaction, our Customer Service Manager,
{facts.customer_service_manager}, will review it; the Transport Manager, {facts.transport_manager}, is
responsible for the delivery fleet and the drivers.
""")
