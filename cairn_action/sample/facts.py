"""Facts shared by several sample documents, so the corpus agrees with itself.

A document that mentions the company's phone number, a depot or the head of food safety takes it
from here; figures that belong to one document are drawn inside that document's module.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.draw import Draw

TOWNS = ("Ashbourne", "Brackley", "Corbridge", "Dunmore", "Elstow", "Framlingham", "Glenrothes")


@dataclass(frozen=True)
class Facts:
    company: str
    short_name: str
    founded_year: int
    founders: tuple[str, str]
    head_office_town: str
    depots: tuple[str, str, str]  # main depot first
    phone: str
    email_domain: str
    head_of_food_safety: str
    quality_manager: str
    credit_controller: str
    transport_manager: str
    customer_service_manager: str
    managing_director: str
    data_protection_officer: str
    supplier_manager: str

    @property
    def orders_email(self) -> str:
        return f"orders@{self.email_domain}"

    @property
    def support_email(self) -> str:
        return f"help@{self.email_domain}"


def facts_for(draw: Draw) -> Facts:
    people = draw.people("staff", 12)
    towns = draw.shuffled("towns", TOWNS)
    return Facts(
        company="Halcyon Provisions Ltd",
        short_name="Halcyon Provisions",
        founded_year=draw.integer("founded", 1978, 1994),
        founders=(people[0], people[1]),
        head_office_town=towns[0],
        depots=(towns[0], towns[1], towns[2]),
        phone=f"0{draw.integer('phone:area', 1200, 1999)} {draw.integer('phone:local', 400000, 899999)}",
        email_domain="halcyon-provisions.example",
        head_of_food_safety=people[2],
        quality_manager=people[3],
        credit_controller=people[4],
        transport_manager=people[5],
        customer_service_manager=people[6],
        managing_director=people[7],
        data_protection_officer=people[8],
        supplier_manager=people[9],
    )
