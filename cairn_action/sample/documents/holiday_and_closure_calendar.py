"""The 2026 holiday and closure calendar: bank holidays, Christmas and New Year, stock-take closures."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from cairn_action.sample.documents.delivery_schedules_and_cutoffs import (
    figures as delivery_figures,
)
from cairn_action.sample.documents.delivery_schedules_and_cutoffs import hhmm_minus, unwrap
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "holiday-and-closure-calendar.md"

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
SUMMER_SATURDAYS = (datetime.date(2026, 6, 20), datetime.date(2026, 6, 27), datetime.date(2026, 7, 4))
DEEP_CLEAN_MONDAYS = (datetime.date(2026, 11, 2), datetime.date(2026, 11, 9), datetime.date(2026, 11, 16))
BANK_HOLIDAY_SERVICE = {
    "full": "Full Monday service from all depots",
    "town": "Town-centre zones only (zones ending -1)",
    "closed": "Closed; Monday deliveries move to Tuesday",
}


def long_date(day: datetime.date, year: bool = True) -> str:
    text = f"{WEEKDAYS[day.weekday()]} {day.day} {MONTHS[day.month - 1]}"
    return f"{text} {day.year}" if year else text


@dataclass(frozen=True)
class ClosureFigures:
    may_day: str
    spring: str
    summer: str
    friday_move_cutoff: str
    easter_tuesday_cutoff: str
    xmas_eve_finish: str
    nye_finish: str
    post_xmas_cutoff: str
    care_home_cutoff: str
    new_year_cutoff: str
    cs_xmas_eve_close: str
    cs_nye_close: str
    stocktakes: tuple[tuple[str, datetime.date], ...]
    stocktake_cutoff: str
    deep_clean: datetime.date
    school_pause: datetime.date
    school_restart: datetime.date


def figures(draw: Draw, facts: Facts) -> ClosureFigures:
    services = draw.shuffled("closures.bank_holidays", tuple(BANK_HOLIDAY_SERVICE))
    eve_cutoff = hhmm_minus(delivery_figures(draw, facts).next_day_cutoff, 2)
    stocktake_options = [t for t in ("14:00", "14:30", "15:00") if t != eve_cutoff]
    base = draw.pick("closures.stocktake_base", SUMMER_SATURDAYS[:2])
    order = draw.shuffled("closures.stocktake_order", facts.depots)
    stocktakes = tuple(
        sorted(((depot, base + datetime.timedelta(weeks=order.index(depot))) for depot in facts.depots),
               key=lambda pair: pair[1])
    )  # fmt: skip
    pause = draw.pick("closures.school_pause", (datetime.date(2026, 7, 20), datetime.date(2026, 7, 27)))
    return ClosureFigures(
        may_day=services[0],
        spring=services[1],
        summer=services[2],
        friday_move_cutoff=draw.pick("closures.friday_move_cutoff", ("11:00", "12:00", "13:00")),
        easter_tuesday_cutoff=draw.pick("closures.easter_tuesday_cutoff", ("11:00", "12:00")),
        xmas_eve_finish=draw.pick("closures.xmas_eve_finish", ("12:00", "13:00", "14:00")),
        nye_finish=draw.pick("closures.nye_finish", ("13:00", "14:00", "15:00")),
        post_xmas_cutoff=draw.pick("closures.post_xmas_cutoff", ("09:00", "10:00", "11:00")),
        care_home_cutoff=draw.pick("closures.care_home_cutoff", ("12:00", "14:00")),
        new_year_cutoff=draw.pick("closures.new_year_cutoff", ("10:00", "11:00", "12:00")),
        cs_xmas_eve_close=draw.pick("closures.cs_xmas_eve_close", ("12:00", "13:00")),
        cs_nye_close=draw.pick("closures.cs_nye_close", ("14:00", "15:00", "16:00")),
        stocktakes=stocktakes,
        stocktake_cutoff=draw.pick("closures.stocktake_cutoff", stocktake_options),
        deep_clean=draw.pick("closures.deep_clean", DEEP_CLEAN_MONDAYS),
        school_pause=pause,
        school_restart=draw.pick(
            "closures.school_restart", (datetime.date(2026, 9, 2), datetime.date(2026, 9, 3))
        ),
    )


def render(draw: Draw, facts: Facts) -> str:
    c = figures(draw, facts)
    d = delivery_figures(draw, facts)
    main, second, third = facts.depots
    normal = d.next_day_cutoff
    bank_rows = [
        (datetime.date(2026, 5, 4), "Early May bank holiday", c.may_day),
        (datetime.date(2026, 5, 25), "Spring bank holiday", c.spring),
        (datetime.date(2026, 8, 31), "Summer bank holiday", c.summer),
    ]
    summary = [
        (datetime.date(2026, 1, 1), "New Year's Day", "All depots", "Closed"),
        (datetime.date(2026, 4, 3), "Good Friday", "All depots", "Closed"),
        (datetime.date(2026, 4, 6), "Easter Monday", "All depots", "Closed"),
    ]
    summary += [(day, name, "All depots", BANK_HOLIDAY_SERVICE[key]) for day, name, key in bank_rows]
    summary += [(day, "Summer stock-take", depot, "Depot closed; no Saturday deliveries from it")
                for depot, day in c.stocktakes]  # fmt: skip
    summary += [
        (c.deep_clean, "Frozen store deep clean", main, "Frozen lines delivered from " + second),
        (datetime.date(2026, 12, 25), "Christmas Day", "All depots", "Closed"),
        (datetime.date(2026, 12, 26), "Boxing Day", "All depots", "Closed"),
        (datetime.date(2026, 12, 28), "Boxing Day (substitute day)", "All depots",
         f"Closed except the care-home run from {main}"),
    ]  # fmt: skip
    if "Glenrothes" in facts.depots:
        summary.append((datetime.date(2026, 8, 3), "Scottish summer bank holiday", "Glenrothes", "Closed"))
    summary.sort(key=lambda row: row[0])
    summary_rows = "\n".join(
        f"| {day.day} {MONTHS[day.month - 1]} | {WEEKDAYS[day.weekday()]} | {name} | {where} | {what} |"
        for day, name, where, what in summary
    )
    bank_text = {
        "full": "we run a full Monday service from all three depots, and Monday orders close at the usual "
        "time on the Saturday before",
        "town": "only the town-centre zones (those ending -1) receive deliveries; every other zone's "
        "Monday delivery moves to Tuesday",
        "closed": "all depots are closed, and every Monday delivery moves to the Tuesday",
    }
    bank_lines = "\n".join(f"- {long_date(day)} ({name}): {bank_text[key]}." for day, name, key in bank_rows)
    stock_lines = "\n".join(
        f"- {depot} depot: closed for stock-take on {long_date(day)}" for depot, day in c.stocktakes
    )
    xmas = [
        ("Monday 21 December", "Normal", f"Friday 18 December, normal cut-off ({normal})"),
        ("Tuesday 22 December", "Normal", f"Monday 21 December, normal cut-off ({normal})"),
        ("Wednesday 23 December", "Normal, busiest day of the year", "Tuesday 22 December, normal cut-off"),
        ("Thursday 24 December", f"All zones, finishing by {c.xmas_eve_finish}",
         "Wednesday 23 December, two hours before the normal cut-off"),
        ("Friday 25 to Sunday 27 December", "Closed", "-"),
        ("Monday 28 December", f"Care-home run from {main} only",
         f"Wednesday 23 December at {c.care_home_cutoff}"),
        ("Tuesday 29 December", "All zones", f"Thursday 24 December at {c.post_xmas_cutoff}"),
        ("Wednesday 30 December", "Normal", f"Tuesday 29 December, normal cut-off ({normal})"),
        ("Thursday 31 December", f"All zones, finishing by {c.nye_finish}",
         "Wednesday 30 December, two hours before the normal cut-off"),
        ("Friday 1 January 2027", "Closed", "-"),
        ("Saturday 2 January 2027", "Saturday zones", f"Thursday 31 December at {c.new_year_cutoff}"),
        ("Monday 4 January 2027", "Normal", f"Saturday 2 January at {d.monday_cutoff}"),
    ]  # fmt: skip
    xmas_rows = "\n".join(f"| {day} | {service} | {order_by} |" for day, service, order_by in xmas)
    scotland = ""
    if "Glenrothes" in facts.depots:
        scotland = (
            "\n\nThe Glenrothes depot also closes on two Scottish bank holidays: Monday 3 August 2026 "
            "and Saturday 2 January 2027, when its zones receive no delivery. It keeps the same Easter "
            "closures as the other depots, so that stock transfers between depots are not disrupted, and "
            "St Andrew's Day, Monday 30 November 2026, is a normal working day at every depot."
        )
    return unwrap(f"""
# Holiday and Closure Calendar 2026

*Published by the Transport Office, {facts.company}. Read this calendar alongside the Delivery
Schedules and Order Cut-off Times guide: where the two differ, the calendar applies on the dates it
lists.*

This calendar lists every day in 2026 on which one or more of our depots is closed or runs a changed
service, the altered order cut-offs around each holiday, and the Christmas and New Year schedule. It
also covers the summer stock-take closures at {main}, {second} and {third}, the annual deep clean of
the frozen store and the pause in school deliveries over the summer. Customers are reminded by email two
weeks before each change, and the Trade Portal will only offer delivery dates we can actually meet.

## Closures and service changes at a glance

| Date | Day | Occasion | Depots | Deliveries |
|---|---|---|---|---|
{summary_rows}

Sunday is not shown: we never deliver on a Sunday. Any date not in the table runs to the normal
schedule for your zone.{scotland}

## Easter 2026

All three depots are closed on Good Friday, 3 April, and on Easter Monday, 6 April. Zones that normally
receive a Friday delivery get it a day early, on Thursday 2 April, and the cut-off for that delivery is
{c.friday_move_cutoff} on Wednesday 1 April rather than the usual {normal}. Saturday 4 April runs as a
normal Saturday, but because the Friday is a closure day its orders must be placed by the normal
next-day cut-off on Thursday 2 April.

Monday deliveries do not move to another day over Easter: the Monday is simply skipped, and your next
delivery is on your zone's next delivery day after it. For Tuesday 7 April, which is the busiest day of
the spring, orders must be placed by {c.easter_tuesday_cutoff} on Saturday 4 April through the Trade
Portal. Customer Service is closed from Good Friday until it reopens on Tuesday 7 April, and over the
Easter weekend only the duty manager line is available, for emergencies.

## Other bank holidays

The three remaining bank holidays before Christmas are each handled differently, depending on how many
of our restaurant and café customers trade through them and how many of our schools and offices close:

{bank_lines}

Where a Monday delivery moves to the Tuesday, the order cut-off moves with it and becomes the normal
next-day cut-off on the Monday itself, through the Trade Portal. New Year's Day, Thursday 1 January
2026, is a closure day at all depots, and Friday 2 January 2026 runs a normal service.

## Christmas and New Year 2026

The Christmas period is the busiest fortnight of our year and the one with the most changes. Please
place Christmas orders early: from Monday 2 November 2026 the Trade Portal takes orders for every delivery
date up to 2 January 2027, and from Monday 7 December we cannot guarantee that seasonal lines ordered
less than three working days ahead will be available.

| Delivery day | Service | Order by |
|---|---|---|
{xmas_rows}

On Christmas Eve and New Year's Eve every zone receives a delivery, including zones that do not normally
get one on a Thursday, so that kitchens can stock up before the closure days. These deliveries start
early and must be finished by {c.xmas_eve_finish} on 24 December and by {c.nye_finish} on 31 December, so
standard windows do not apply and timed deliveries cannot be booked on either day.

Orders for Christmas Eve and New Year's Eve close two hours before the normal next-day cut-off, on 23
and 30 December respectively. The closure days make Tuesday 29 December the tightest deadline of all:
because nothing is picked between Christmas Day and the morning of 28 December, orders for the 29th must
be in by {c.post_xmas_cutoff} on Christmas Eve.

The care-home run on Monday 28 December is a continuity service for care homes, hospices and hospital
kitchens supplied from any of our depots, picked and loaded at {main}. It carries chilled, frozen and
ambient goods, but not special-order lines. Care homes must order for it by {c.care_home_cutoff} on
Wednesday 23 December; other customers cannot book it.

Customer Service closes at {c.cs_xmas_eve_close} on Christmas Eve and reopens at its normal time on Tuesday 29
December. On New Year's Eve it closes at {c.cs_nye_close}, and it is closed on New Year's Day. During
the closure days a duty manager can be reached for genuine emergencies affecting care homes, such as a
missing delivery of thickened fluids or texture-modified meals, by calling {facts.phone} and choosing
option 9.

## Summer stock-take closures

Each depot closes for one Saturday in the summer while we count every line in stock. The dates for 2026
are:

{stock_lines}

On a stock-take Saturday the depot is closed to customers and suppliers and makes no deliveries, so
Saturday zones served by that depot receive their delivery on the Friday before instead. To give the
pickers time to finish before the count begins, the next-day cut-off for that Friday is brought forward
to {c.stocktake_cutoff} on the Thursday. The other two depots run their Saturday service as normal, and
customers of the closed depot cannot switch to them for the day.

A smaller year-end count takes place at all depots on the evening of Thursday 31 December, after the
New Year's Eve deliveries have finished. It does not close any depot, but it is one reason the
deliveries that day finish early.

## Frozen store deep clean

Once a year the frozen store at {main} is emptied, defrosted and deep-cleaned. In 2026 this happens on
{long_date(c.deep_clean)}. The chilled and ambient stores stay open as normal that day, but frozen lines
for {main} zones are picked at {second} and transferred on a trunk vehicle, so frozen items may arrive up
to two hours later than your usual window. Frozen lines for delivery on the deep-clean day must be
ordered by 12:00 on the Friday before; orders for chilled and ambient goods keep the normal cut-off.

## Schools over the summer

School kitchen accounts are paused automatically from {long_date(c.school_pause)} and restart on
{long_date(c.school_restart)}. If your school runs a holiday club, a summer school or lettings with
catering, tell Customer Service by the end of June and we will keep the account active on your chosen
days. Standing orders are suspended during the pause and resume without any action from you.

## Planning ahead

Cut-offs around holidays are earlier than usual, so the safest plan is to order for the whole closure
in one delivery, checking storage space in your freezer and cold rooms beforehand. Chilled goods with a
short life, such as fresh fish and dairy, are better ordered for the first delivery day after a
closure than stored through it. If you are unsure which days apply to your zone, the Transport Office
on extension {d.transport_ext} can confirm them, and the Trade Portal calendar always shows the dates on
which your next deliveries can be booked.
""")
