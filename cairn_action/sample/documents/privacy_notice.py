"""Privacy notice for customers and drivers: data held, CCTV and telematics, retention, rights."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from cairn_action.sample.documents.delivery_schedules_and_cutoffs import unwrap
from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "privacy-notice.md"

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
UPDATED = (datetime.date(2026, 2, 16), datetime.date(2026, 3, 9), datetime.date(2026, 4, 20))


@dataclass(frozen=True)
class PrivacyFigures:
    ico_number: str
    dpo_ext: int
    call_days: int
    cctv_days: int
    dashcam_days: int
    telematics_months: int
    tacho_months: int
    licence_check_months: int
    applicant_months: int
    claim_years: int
    dormant_months: int
    updated: datetime.date


def figures(draw: Draw) -> PrivacyFigures:
    return PrivacyFigures(
        ico_number=f"ZA{draw.integer('privacy.ico', 100000, 999999)}",
        dpo_ext=draw.integer("privacy.dpo_ext", 400, 449),
        call_days=draw.pick("privacy.call_days", (60, 90, 180)),
        cctv_days=draw.pick("privacy.cctv_days", (30, 31, 45)),
        dashcam_days=draw.pick("privacy.dashcam_days", (14, 21, 28)),
        telematics_months=draw.pick("privacy.telematics_months", (12, 18, 24)),
        tacho_months=draw.pick("privacy.tacho_months", (18, 24)),
        licence_check_months=draw.pick("privacy.licence_check_months", (3, 6)),
        applicant_months=draw.pick("privacy.applicant_months", (6, 12)),
        claim_years=draw.pick("privacy.claim_years", (3, 6)),
        dormant_months=draw.pick("privacy.dormant_months", (24, 36)),
        updated=draw.pick("privacy.updated", UPDATED),
    )


def render(draw: Draw, facts: Facts) -> str:
    p = figures(draw)
    updated = f"{p.updated.day} {MONTHS[p.updated.month - 1]} {p.updated.year}"
    dpo_email = f"dpo@{facts.email_domain}"
    credit_agency = draw.pick("privacy.credit_agency", ("Northgate Credit Data", "Meridian Credit Reference"))
    telematics_vendor = draw.pick("privacy.telematics_vendor", ("FleetLine Telematics", "RouteWise Systems"))
    retention = [
        ("Customer account, order and invoice records", "6 years after the end of the financial year in "
         "which the account closes"),
        ("Recordings of calls to Customer Service", f"{p.call_days} days"),
        ("Depot CCTV footage", f"{p.cctv_days} days, unless needed for an investigation"),
        ("Forward-facing dashcam footage", f"{p.dashcam_days} days, unless linked to an incident"),
        ("Footage and data linked to an accident or insurance claim",
         f"{p.claim_years} years after the claim is settled"),
        ("Vehicle telematics data", f"{p.telematics_months} months"),
        ("Tachograph and drivers' hours records", f"{p.tacho_months} months"),
        ("Employment records of drivers and other staff", "6 years after employment ends"),
        ("Unsuccessful job applications", f"{p.applicant_months} months after the post is filled"),
        ("Marketing preferences", f"Until you opt out, or {p.dormant_months} months after your last order"),
    ]  # fmt: skip
    retention_rows = "\n".join(f"| {what} | {how_long} |" for what, how_long in retention)
    return unwrap(f"""
# Privacy Notice

*{facts.company}. Last updated {updated}.*

This notice explains what personal information {facts.short_name} holds about the people we deal with,
why we hold it, how long we keep it and what rights you have over it. {facts.company} is the controller
of this information and is registered with the Information Commissioner's Office under number
{p.ico_number}. Our Data Protection Officer is {facts.data_protection_officer}, who can be reached at
{dpo_email} or on {facts.phone}, extension {p.dpo_ext}.

Most of our customers are businesses, but the people who run them, order from us, sign for deliveries
and pay our invoices are individuals, and so are our drivers, warehouse staff and job applicants. Where
this notice says "you", it means any of those people.

## Information we hold about customers

When you open an account and trade with us we hold:

- the names, job titles, telephone numbers and email addresses of the people we deal with at your
business, including the people authorised to place orders and sign for deliveries;
- delivery addresses, site access notes, key-holding arrangements and the codes for any key safe or
lock-box we use;
- your order history, standing orders, invoices, credit notes and payment history;
- the results of credit checks on the business and, for sole traders and partnerships, on the
owners personally;
- signatures, printed names and photographs captured on our drivers' handhelds as proof of delivery;
- recordings of calls to Customer Service, and emails and web-chat messages you send us;
- your marketing preferences and, if you use our Trade Portal, your login details and the pages you visit.

We do not hold card numbers: card payments are handled by our payment provider, and we see only the
last four digits and the expiry date. We do not ask for, and do not want, any information about the
health of the residents or pupils you cater for beyond the dietary requirements you choose to tell us.

## Information we hold about drivers and other staff

For drivers we hold the information any employer needs, such as contact details, bank details, pay
and absence records, together with information specific to the job:

- driving licence details, including endorsements, and the results of licence checks made with the
DVLA, which we repeat every {p.licence_check_months} months with your consent;
- Driver Certificate of Professional Competence training records;
- digital tachograph and drivers' hours records;
- vehicle telematics data and forward-facing dashcam footage from the vehicles you drive;
- accident and incident reports, and the results of any drug and alcohol tests;
- records of training, including cold-chain and manual-handling training.

Health information, such as a medical needed to keep a vocational licence, is special category data.
It is seen only by the HR team and the occupational health provider, and managers are told only whether
you are fit for the duties of the role.

## Why we use information and our lawful basis

| Purpose | Main information used | Lawful basis |
|---|---|---|
| Taking orders, delivering and invoicing | Contacts, addresses, orders, proof of delivery | Contract |
| Credit control and debt recovery | Payment history, credit checks | Legitimate interests |
| Food safety and product recalls | Delivery records, batch codes, contact details | Legal obligation |
| Employing drivers and staff | Employment, licence and tachograph records | Contract and legal obligation |
| Road safety and fleet management | Telematics and dashcam data | Legitimate interests |
| Security of depots and stock | CCTV footage | Legitimate interests |
| Marketing to business customers | Contact details, order history | Legitimate interests, with opt-out |

Where we rely on legitimate interests we have weighed our interests against yours and recorded the
assessment. You can ask the Data Protection Officer for a copy.

## CCTV at our depots

CCTV cameras cover the yards, loading bays, goods-in doors, cold-store entrances and the perimeter of
each depot at {", ".join(facts.depots[:2])} and {facts.depots[2]}. Signs at every entrance say that
recording is in progress. Cameras do not cover toilets, changing rooms or rest areas, and they do not
record sound. Footage is used to keep our sites, stock and people safe, to investigate accidents and
losses and to check disputed deliveries collected from the depot. It is viewed only by managers and the
security team, and is overwritten after {p.cctv_days} days unless it has been saved for an
investigation.

## Vehicle telematics and cameras

Every vehicle in our fleet carries a telematics unit supplied by {telematics_vendor}. It records the
vehicle's location, speed, harsh braking, acceleration and cornering, idling time, engine hours, the
temperatures of the refrigerated compartments and each time a compartment door is opened. We use this
information to plan routes, to send customers their arrival-time messages, to prove that the cold chain
was maintained, to investigate accidents and complaints, and to coach drivers on safe and economical
driving.

Our vehicles are for business use only and are not taken home, so the telematics unit records
journeys made for work. Data recorded outside a driver's rostered hours is not reviewed unless the
vehicle has been reported stolen or has been involved in an incident. Telematics data is never used as
the only evidence in a disciplinary case: a manager must first talk to the driver about what the data
shows. We keep the telematics history of each vehicle for {p.telematics_months} months, which lets us
compare a driver's scores across a full year of seasons and routes, and then delete it.

Dashcams on our vehicles face forward and outward only. No camera records the inside of the cab or the
driver, and the dashcams do not record sound. Footage is saved automatically when the camera detects a
sudden impact or harsh braking, and a driver can save it manually by pressing the event button.

## Who we share information with

We share personal information only where we need to, and only with:

- our IT, Trade Portal, payment and telematics providers, who act on our instructions;
- {credit_agency}, the credit reference agency we use to check new and existing accounts;
- our insurers, loss adjusters and solicitors, when there is an accident or a claim;
- the DVLA, for driving licence checks;
- the police, environmental health officers and other authorities where the law requires it, for
example during a food-safety investigation or after a road accident.

We never sell personal information, and we do not let other businesses use it for their own marketing.

## How long we keep information

| Information | Kept for |
|---|---|
{retention_rows}

When a retention period ends the information is deleted or anonymised. Where we are dealing with a claim,
a complaint or an investigation, we keep the information needed for it until the matter is closed, even
if the normal period has ended.

## Transfers outside the UK

Our systems are hosted in the United Kingdom. One of our software providers gives technical support from
the European Economic Area and may see personal information while doing so; the UK recognises the EEA as
giving adequate protection. We do not transfer personal information anywhere else.

## Your rights

You have the right to ask for a copy of the personal information we hold about you, to have it
corrected, to have it deleted where we no longer have a good reason to keep it, to restrict or object to
how we use it, and to receive information you gave us in a portable format. You can object to marketing
at any time, and we will stop straight away.

We answer requests within one month. If a request is complex, or you send us several, we may extend that
by up to two further months, and we will tell you why within the first month. We do not normally charge
for answering a request. To make one, contact the Data Protection Officer, {facts.data_protection_officer},
by email at {dpo_email}, by phone on extension {p.dpo_ext}, or in writing to head office in
{facts.head_office_town}. We may ask you to confirm your identity before we reply.

## Complaints

If you are unhappy with how we have handled your information, please tell the Data Protection Officer
first, so that we can try to put it right. You also have the right to complain to the Information
Commissioner's Office, the UK regulator for data protection, at ico.org.uk or on 0303 123 1113.
""")
