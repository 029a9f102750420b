"""The product catalogue: every line Halcyon Provisions sells, by category, with SKUs, packs and prices.

The product list lives here and is imported by the allergen and recall documents, so a SKU means the
same product everywhere in the corpus.
"""

from __future__ import annotations

from dataclasses import dataclass

from cairn_action.sample.draw import Draw
from cairn_action.sample.facts import Facts

PATH = "product-catalogue.md"

CELERY = "Celery"
WHEAT = "Gluten (wheat)"
OATS = "Gluten (oats)"
BARLEY = "Gluten (barley)"
CRUSTACEANS = "Crustaceans"
EGGS = "Eggs"
FISH = "Fish"
LUPIN = "Lupin"
MILK = "Milk"
MOLLUSCS = "Molluscs"
MUSTARD = "Mustard"
NUTS = "Tree nuts"
PEANUTS = "Peanuts"
SESAME = "Sesame"
SOYA = "Soya"
SULPHITES = "Sulphites"

CATEGORIES = (
    ("DAI", "Dairy and eggs"),
    ("MEA", "Meat and poultry"),
    ("FSH", "Fish and seafood"),
    ("BAK", "Bakery"),
    ("DRY", "Dry goods and sauces"),
    ("FRZ", "Frozen"),
    ("PRO", "Fresh produce"),
    ("DRK", "Drinks"),
)


@dataclass(frozen=True)
class Item:
    key: str
    category: str
    offset: int
    name: str
    pack: str
    storage: str
    allergens: tuple[str, ...]
    low: float
    high: float


@dataclass(frozen=True)
class Product:
    key: str
    category: str
    sku: str
    name: str
    pack: str
    storage: str
    allergens: tuple[str, ...]
    price: float

    @property
    def allergen_text(self) -> str:
        return ", ".join(self.allergens) if self.allergens else "None of the 14"

    @property
    def label(self) -> str:
        return f"{self.name} ({self.pack})"


ITEMS = (
    Item("cheddar_5kg", "DAI", 12, "Mature Cheddar, block", "5 kg", "Chilled", (MILK,), 31.0, 42.0),
    Item("cheddar_2kg", "DAI", 13, "Mature Cheddar, block", "2.5 kg", "Chilled", (MILK,), 16.5, 23.0),
    Item("grated_mix", "DAI", 18, "Grated Mozzarella and Cheddar Mix", "4 x 2 kg", "Chilled",
         (MILK,), 38.0, 52.0),
    Item("whole_milk", "DAI", 21, "Whole Milk", "6 x 2 L", "Chilled", (MILK,), 6.5, 9.5),
    Item("semi_milk", "DAI", 22, "Semi-Skimmed Milk", "6 x 2 L", "Chilled", (MILK,), 6.2, 9.2),
    Item("double_cream", "DAI", 27, "Double Cream", "6 x 1 L", "Chilled", (MILK,), 17.0, 24.0),
    Item("butter_block", "DAI", 31, "Unsalted Butter", "40 x 250 g", "Chilled", (MILK,), 78.0, 96.0),
    Item("butter_portions", "DAI", 33, "Salted Butter Portions", "100 x 10 g", "Chilled", (MILK,), 7.5, 11.0),
    Item("yoghurt", "DAI", 38, "Greek-Style Natural Yoghurt", "6 x 1 kg", "Chilled", (MILK,), 13.0, 18.5),
    Item("eggs_180", "DAI", 42, "Free-Range Medium Eggs", "tray of 180", "Ambient", (EGGS,), 34.0, 46.0),
    Item("liquid_egg", "DAI", 44, "Pasteurised Liquid Whole Egg", "6 x 1 L", "Chilled", (EGGS,), 19.0, 27.0),
    Item("halloumi", "DAI", 47, "Halloumi", "10 x 250 g", "Chilled", (MILK,), 24.0, 33.0),
    Item("sausages", "MEA", 14, "Premium Pork Sausages, 8s", "5 kg", "Chilled",
         (WHEAT, SULPHITES), 22.0, 31.0),
    Item("gf_sausages", "MEA", 15, "Gluten-Free Pork Sausages, 8s", "5 kg", "Chilled",
         (SULPHITES,), 24.0, 34.0),
    Item("smoked_bacon", "MEA", 21, "Smoked Back Bacon", "2.27 kg", "Chilled", (), 13.0, 19.0),
    Item("unsmoked_bacon", "MEA", 22, "Unsmoked Back Bacon", "2.27 kg", "Chilled", (), 12.5, 18.5),
    Item("chicken_breast", "MEA", 28, "Chicken Breast Fillets", "2 x 2.5 kg", "Chilled", (), 27.0, 38.0),
    Item("beef_mince", "MEA", 33, "Beef Mince, 15% fat", "2 x 2.5 kg", "Chilled", (), 29.0, 39.0),
    Item("ham", "MEA", 36, "Honey Roast Ham, sliced", "4 x 500 g", "Chilled", (), 18.0, 26.0),
    Item("lamb", "MEA", 41, "Diced Lamb Shoulder", "2.5 kg", "Chilled", (), 31.0, 44.0),
    Item("pulled_pork", "MEA", 45, "Pulled Pork in BBQ Sauce", "2 x 2 kg", "Chilled",
         (CELERY, MUSTARD), 26.0, 36.0),
    Item("cod", "FSH", 11, "Skinless Cod Loins, 170-200 g", "5 kg", "Frozen", (FISH,), 58.0, 79.0),
    Item("smoked_salmon", "FSH", 16, "Smoked Salmon, sliced", "1 kg", "Chilled", (FISH,), 24.0, 33.0),
    Item("salmon_flakes", "FSH", 17, "Hot-Smoked Salmon Flakes", "2 x 500 g", "Chilled", (FISH,), 21.0, 29.0),
    Item("king_prawns", "FSH", 23, "Raw Peeled King Prawns", "1 kg", "Frozen", (CRUSTACEANS,), 14.0, 21.0),
    Item("cooked_prawns", "FSH", 24, "Cooked Peeled Prawns", "1 kg", "Frozen", (CRUSTACEANS,), 11.0, 16.5),
    Item("haddock", "FSH", 29, "Breaded Haddock Fillets", "40 x 140 g", "Frozen",
         (FISH, WHEAT, MILK), 52.0, 71.0),
    Item("tuna", "FSH", 34, "Tuna Chunks in Brine", "6 x 1.7 kg", "Ambient", (FISH,), 63.0, 84.0),
    Item("mussels", "FSH", 38, "Mussels in Garlic Butter", "8 x 450 g", "Frozen",
         (MOLLUSCS, MILK), 29.0, 39.0),
    Item("salmon_fillets", "FSH", 41, "Salmon Fillets, skin-on", "4 x 1 kg", "Frozen", (FISH,), 48.0, 66.0),
    Item("fish_pie", "FSH", 46, "Fish Pie Mix", "5 x 1 kg", "Frozen", (FISH,), 36.0, 49.0),
    Item("white_loaf", "BAK", 12, "White Sandwich Loaf, thick sliced", "12 x 800 g", "Ambient", (WHEAT, SOYA),
         11.0, 15.5),
    Item("brown_loaf", "BAK", 13, "Wholemeal Sandwich Loaf, thick sliced", "12 x 800 g", "Ambient",
         (WHEAT, SOYA), 11.5, 16.0),
    Item("gf_loaf", "BAK", 17, "Gluten-Free White Loaf", "8 x 400 g", "Ambient", (EGGS,), 17.0, 24.0),
    Item("brioche_buns", "BAK", 22, "Brioche Burger Buns", "48 x 80 g", "Frozen",
         (WHEAT, EGGS, MILK), 19.0, 27.0),
    Item("sesame_buns", "BAK", 23, "Sesame-Topped Burger Buns", "48 x 80 g", "Ambient", (WHEAT, SESAME),
         14.0, 20.0),
    Item("croissants", "BAK", 28, "All-Butter Croissants, bake from frozen", "60 x 90 g", "Frozen",
         (WHEAT, MILK, EGGS), 27.0, 37.0),
    Item("scones", "BAK", 31, "Plain Scones", "48 x 70 g", "Frozen", (WHEAT, MILK, EGGS), 15.0, 21.0),
    Item("wraps", "BAK", 35, "Plain Tortilla Wraps, 12 inch", "6 x 12", "Ambient", (WHEAT,), 13.0, 18.0),
    Item("bloomer", "BAK", 38, "Sourdough Bloomer", "6 x 800 g", "Frozen", (WHEAT,), 16.0, 23.0),
    Item("brownie", "BAK", 42, "Chocolate Brownie Traybake", "1.7 kg", "Frozen",
         (WHEAT, EGGS, MILK), 21.0, 29.0),
    Item("mayo_real", "DRY", 11, "Real Mayonnaise", "2 x 5 L", "Ambient", (EGGS, MUSTARD), 17.0, 24.0),
    Item("mayo_light", "DRY", 12, "Light Mayonnaise", "2 x 5 L", "Ambient", (EGGS,), 16.0, 23.0),
    Item("mayo_vegan", "DRY", 13, "Vegan Mayonnaise", "2 x 2.27 L", "Ambient", (MUSTARD, SOYA), 14.0, 20.0),
    Item("ketchup", "DRY", 17, "Tomato Ketchup", "2 x 4.5 L", "Ambient", (), 12.0, 17.0),
    Item("rice", "DRY", 21, "Basmati Rice", "10 kg", "Ambient", (), 17.0, 25.0),
    Item("penne", "DRY", 24, "Penne Rigate", "2 x 3 kg", "Ambient", (WHEAT,), 7.0, 11.0),
    Item("gf_penne", "DRY", 25, "Gluten-Free Penne", "6 x 500 g", "Ambient", (), 9.0, 14.0),
    Item("flour", "DRY", 28, "Plain Flour", "16 kg", "Ambient", (WHEAT,), 10.0, 15.0),
    Item("tomatoes", "DRY", 31, "Chopped Tomatoes", "6 x 2.5 kg", "Ambient", (), 15.0, 21.0),
    Item("bouillon", "DRY", 34, "Vegetable Bouillon Powder", "2 x 1 kg", "Ambient", (CELERY,), 15.0, 22.0),
    Item("gravy", "DRY", 35, "Gravy Granules", "2 x 2 kg", "Ambient", (WHEAT, BARLEY, CELERY), 16.0, 23.0),
    Item("pesto", "DRY", 39, "Green Pesto", "2 x 950 g", "Ambient", (MILK, NUTS), 19.0, 27.0),
    Item("dijon", "DRY", 43, "Dijon Mustard", "2 x 2.2 kg", "Ambient", (MUSTARD,), 13.0, 19.0),
    Item("sesame_oil", "DRY", 46, "Toasted Sesame Oil", "6 x 500 ml", "Ambient", (SESAME,), 21.0, 29.0),
    Item("peanut_butter", "DRY", 48, "Smooth Peanut Butter", "2 x 2.27 kg", "Ambient",
         (PEANUTS,), 17.0, 24.0),
    Item("oats", "DRY", 52, "Rolled Porridge Oats", "3 kg", "Ambient", (OATS,), 5.5, 8.5),
    Item("granola", "DRY", 54, "Honey and Almond Granola", "4 x 1 kg", "Ambient", (OATS, NUTS), 18.0, 26.0),
    Item("soy_sauce", "DRY", 57, "Light Soy Sauce", "2 x 1.9 L", "Ambient", (SOYA, WHEAT), 9.0, 13.5),
    Item("apricots", "DRY", 61, "Dried Apricots", "6 x 1 kg", "Ambient", (SULPHITES,), 28.0, 38.0),
    Item("fries", "FRZ", 12, "Skin-On Fries, 10 mm", "4 x 2.5 kg", "Frozen", (), 13.0, 18.5),
    Item("sweet_fries", "FRZ", 14, "Sweet Potato Fries", "4 x 2.5 kg", "Frozen", (), 19.0, 27.0),
    Item("peas", "FRZ", 19, "Garden Peas", "4 x 2.5 kg", "Frozen", (), 11.0, 16.0),
    Item("ice_cream", "FRZ", 23, "Vanilla Dairy Ice Cream", "4 L", "Frozen", (MILK,), 8.0, 12.0),
    Item("vegan_ice", "FRZ", 24, "Vanilla Soya Frozen Dessert", "4 L", "Frozen", (SOYA,), 10.0, 14.5),
    Item("goujons", "FRZ", 29, "Breaded Chicken Goujons", "4 x 1 kg", "Frozen", (WHEAT,), 24.0, 33.0),
    Item("spring_rolls", "FRZ", 33, "Vegetable Spring Rolls", "100 x 20 g", "Frozen", (WHEAT, SOYA, CELERY),
         14.0, 20.0),
    Item("berries", "FRZ", 36, "Mixed Summer Berries", "2 x 1 kg", "Frozen", (), 9.0, 13.5),
    Item("lasagne", "FRZ", 41, "Beef Lasagne", "4 x 2 kg", "Frozen", (WHEAT, MILK, EGGS, CELERY), 31.0, 43.0),
    Item("yorkshires", "FRZ", 44, "Yorkshire Puddings, 4 inch", "72", "Frozen",
         (WHEAT, EGGS, MILK), 10.0, 15.0),
    Item("potatoes", "PRO", 11, "Maris Piper Potatoes", "25 kg", "Ambient", (), 11.0, 17.0),
    Item("onions", "PRO", 14, "Brown Onions", "20 kg", "Ambient", (), 9.0, 14.0),
    Item("lettuce", "PRO", 18, "Iceberg Lettuce", "10 heads", "Chilled", (), 7.0, 11.0),
    Item("vine_tomatoes", "PRO", 21, "Vine Tomatoes", "6 kg", "Ambient", (), 12.0, 18.0),
    Item("carrots", "PRO", 24, "Carrots", "10 kg", "Chilled", (), 6.0, 9.5),
    Item("lemons", "PRO", 27, "Lemons", "80 count", "Ambient", (), 14.0, 20.0),
    Item("celery", "PRO", 31, "Celery", "12 heads", "Chilled", (CELERY,), 10.0, 15.0),
    Item("garlic", "PRO", 34, "Peeled Garlic Cloves", "1 kg", "Chilled", (), 6.5, 10.0),
    Item("coleslaw", "PRO", 37, "Coleslaw", "2 x 2.5 kg", "Chilled", (EGGS, MUSTARD), 9.0, 13.5),
    Item("spinach", "PRO", 41, "Washed Baby Spinach", "4 x 500 g", "Chilled", (), 9.5, 14.0),
    Item("oat_barista", "DRK", 12, "Barista Oat Drink", "6 x 1 L", "Ambient", (OATS,), 10.0, 14.5),
    Item("soya_drink", "DRK", 14, "Unsweetened Soya Drink", "6 x 1 L", "Ambient", (SOYA,), 7.5, 11.0),
    Item("almond_drink", "DRK", 15, "Almond Drink", "6 x 1 L", "Ambient", (NUTS,), 9.0, 13.0),
    Item("orange_juice", "DRK", 21, "Smooth Orange Juice", "12 x 1 L", "Ambient", (), 11.0, 16.0),
    Item("apple_juice", "DRK", 22, "Cloudy Apple Juice", "12 x 1 L", "Ambient", (), 11.5, 16.5),
    Item("still_water", "DRK", 26, "Still Spring Water", "24 x 500 ml", "Ambient", (), 5.0, 8.0),
    Item("sparkling_water", "DRK", 27, "Sparkling Spring Water", "24 x 330 ml", "Ambient", (), 5.5, 8.5),
    Item("cola", "DRK", 31, "Cola, cans", "24 x 330 ml", "Ambient", (), 8.0, 12.0),
    Item("coffee", "DRK", 35, "Fairtrade Espresso Beans", "6 x 1 kg", "Ambient", (), 68.0, 92.0),
    Item("tea", "DRK", 38, "English Breakfast Tea Bags", "1,100", "Ambient", (), 19.0, 27.0),
    Item("hot_chocolate", "DRK", 41, "Hot Chocolate Powder", "2 x 2 kg", "Ambient", (MILK, SOYA), 22.0, 31.0),
)  # fmt: skip


def products(draw: Draw) -> tuple[Product, ...]:
    """Every catalogue line for this seed, in catalogue order."""
    bases = {code: draw.integer(f"catalogue.sku_base.{code}", 1, 7) * 100 for code, _ in CATEGORIES}
    return tuple(
        Product(
            key=item.key,
            category=item.category,
            sku=f"HP-{item.category}-{bases[item.category] + item.offset:04d}",
            name=item.name,
            pack=item.pack,
            storage=item.storage,
            allergens=item.allergens,
            price=draw.money(f"catalogue.price.{item.key}", item.low, item.high, 0.05),
        )
        for item in ITEMS
    )


def product_map(draw: Draw) -> dict[str, Product]:
    """Catalogue lines by their stable key (e.g. "mayo_vegan")."""
    return {p.key: p for p in products(draw)}


def _table(rows: list[Product]) -> str:
    lines = [
        "| SKU | Product | Pack | Storage | Case price | Allergens |",
        "|---|---|---|---|---|---|",
    ]
    for p in rows:
        lines.append(f"| {p.sku} | {p.name} | {p.pack} | {p.storage} | £{p.price:.2f} | {p.allergen_text} |")
    return "\n".join(lines)


def _intros(draw: Draw, facts: Facts, pm: dict[str, Product]) -> dict[str, str]:
    dairy_life = draw.integer("catalogue.dairy_life", 7, 10)
    milk_life = draw.integer("catalogue.milk_life", 4, 6)
    cheddar_months = draw.integer("catalogue.cheddar_months", 9, 15)
    meat_life = draw.integer("catalogue.meat_life", 5, 8)
    mince_life = draw.integer("catalogue.mince_life", 3, 4)
    fish_cutoff = draw.pick("catalogue.fish_cutoff", ("11:00", "11:30", "12:00"))
    bread_cutoff = draw.pick("catalogue.bread_cutoff", ("13:00", "13:30", "14:00"))
    dry_months = draw.integer("catalogue.dry_months", 6, 9)
    produce_day = draw.pick("catalogue.produce_day", ("Monday", "Thursday", "Friday"))
    drinks_min = draw.integer("catalogue.drinks_min", 3, 6)
    coffee_grinder = draw.integer("catalogue.coffee_grinder", 18, 30, 2)
    return {
        "DAI": (
            f"Our chilled dairy arrives with at least {dairy_life} days of life remaining, and milk and "
            f"cream with at least {milk_life} days. The mature cheddar is aged for {cheddar_months} months "
            "and is the same cheese in both block sizes: the 5 kg block suits kitchens that grate their own, "
            "the 2.5 kg block suits smaller sites that want to finish a block within its opened life. "
            f"Free-range eggs ({pm['eggs_180'].sku}) are delivered in trays of 180 and should be kept below "
            "20°C away from direct heat; they do not need refrigerating, but must never be stored next to "
            "raw meat."
        ),
        "MEA": (
            "All fresh meat and poultry is British and farm-assured, cut and packed for us by two processors "
            f"we audit every year. Fresh meat is delivered with at least {meat_life} days of life, except "
            f"mince, which is delivered with at least {mince_life} days. The gluten-free sausages "
            f"({pm['gf_sausages'].sku}) are made on a separate production day from the premium pork "
            f"sausages ({pm['sausages'].sku}), with a full clean-down in between; the two look identical "
            "once cooked, so keep them in separate, labelled containers in your fridge."
        ),
        "FSH": (
            "Most of our fish range is frozen at sea or shortly after landing, plus smoked salmon and "
            "tinned tuna; fresh fish is bought to order and is not listed in this catalogue. Wild-caught "
            "lines are certified by the Marine Stewardship Council. Orders for smoked salmon must reach us "
            f"by {fish_cutoff} for next-day delivery, because it is picked from our supplier's cold store "
            "rather than from our own racking. Prawns are crustaceans and mussels are molluscs: these are "
            "two different allergens and are declared separately."
        ),
        "BAK": (
            "Ambient bread is baked the night before delivery, so bread orders close earlier than the rest "
            f"of the range: order by {bread_cutoff} the day before. Frozen bakery lines are bake-from-frozen "
            "unless stated, and the brioche buns need thawing for an hour before toasting. The gluten-free "
            f"loaf ({pm['gf_loaf'].sku}) is produced in a dedicated gluten-free bakery and packed in sealed "
            "bags; store it away from the wheat bread in your kitchen."
        ),
        "DRY": (
            f"Tins, jars, tubs and dry packs are delivered with at least {dry_months} months before their "
            "best-before date. We stock three mayonnaises that sit next to each other on the shelf and in "
            "this table: check the allergens column before ordering, because they differ."
        ),
        "FRZ": (
            "Frozen goods are kept at -18°C or colder from our frozen store to your door, travelling in the "
            "frozen compartment of our multi-temperature vehicles. Please have freezer space ready before "
            "the driver arrives: frozen goods that cannot be put away are taken back and re-delivered on "
            "your next delivery day. Never refreeze a product once it has thawed."
        ),
        "PRO": (
            "Fresh produce prices follow the market, so the case prices below are guide prices for the "
            f"current edition; confirmed prices are sent to every account each {produce_day}. Produce is "
            "delivered in returnable crates, and the driver collects empty crates on the next visit. "
            f"Celery ({pm['celery'].sku}) is one of the 14 allergens and is shown as such."
        ),
        "DRK": (
            f"Drinks can be ordered in any mix, with a minimum of {drinks_min} cases of drinks per delivery. "
            "Plant-based drinks are long-life and ambient until opened, then keep chilled and use within "
            "five days. Accounts that buy at least "
            f"{coffee_grinder} cases of espresso beans a year can borrow a grinder free of charge."
        ),
    }


def _price_changes(draw: Draw, pm: dict[str, Product], edition: str) -> list[str]:
    previous = {"Spring 2026": "Winter 2025", "Summer 2026": "Spring 2026", "Autumn 2026": "Summer 2026"}
    previous_edition = previous[edition]

    def was(key: str, low: float, high: float) -> str:
        return f"£{pm[key].price - draw.money(f'catalogue.price_change.{key}', low, high, 0.05):.2f}"

    salmon, cod, butter = pm["smoked_salmon"], pm["cod"], pm["butter_block"]
    coffee, eggs = pm["coffee"], pm["eggs_180"]
    return [
        "## Price changes this edition",
        "",
        f"Five lines have changed list price since the {previous_edition} edition. Smoked salmon "
        f"({salmon.sku}) is now £{salmon.price:.2f} a case, up from {was('smoked_salmon', 0.9, 2.6)}, "
        "after a poor season at the farms our smoker buys from. The skinless cod loins "
        f"({cod.sku}) rise to £{cod.price:.2f} from {was('cod', 2.0, 5.5)} because of lower North Sea "
        f"quotas. Unsalted butter ({butter.sku}) falls to £{butter.price:.2f} from "
        f"{was('butter_block', -6.0, -2.0)}, as the cream market has eased since the spring. The espresso "
        f"beans ({coffee.sku}) go up to £{coffee.price:.2f} from {was('coffee', 3.0, 7.5)}, reflecting the "
        f"world coffee price, and free-range eggs ({eggs.sku}) come down to £{eggs.price:.2f} from "
        f"{was('eggs_180', -3.5, -1.0)} now that flocks have recovered.",
    ]


def render(draw: Draw, facts: Facts) -> str:
    pm = product_map(draw)
    items = products(draw)
    edition = draw.pick("catalogue.edition", ("Spring 2026", "Summer 2026", "Autumn 2026"))
    valid = {
        "Spring 2026": "1 March 2026 to 31 May 2026",
        "Summer 2026": "1 June 2026 to 31 August 2026",
        "Autumn 2026": "1 September 2026 to 30 November 2026",
    }[edition]
    sub_ext = draw.integer("catalogue.sub_ext", 160, 179)
    spec_days = draw.integer("catalogue.spec_days", 2, 4)
    intros = _intros(draw, facts, pm)
    counts = {code: sum(1 for p in items if p.category == code) for code, _ in CATEGORIES}
    frozen = sum(1 for p in items if p.storage == "Frozen")
    chilled = sum(1 for p in items if p.storage == "Chilled")
    ambient = sum(1 for p in items if p.storage == "Ambient")
    withdrawn_cheese = draw.integer("catalogue.old_sku.cheese", 60, 89)
    withdrawn_juice = draw.integer("catalogue.old_sku.juice", 60, 89)
    big, small = pm["cheddar_5kg"].price / 5, pm["cheddar_2kg"].price / 2.5
    cheaper, per_kg = ("larger", (big, small)) if big <= small else ("smaller", (small, big))

    parts = [
        f"# {facts.short_name} Product Catalogue: {edition} Edition",
        "",
        f"This catalogue lists every product {facts.company} supplies to restaurants, cafés, schools "
        f"and care homes from our depots in {', '.join(facts.depots[:-1])} and {facts.depots[-1]}. The "
        f"{edition} edition holds {len(items)} lines in eight categories: {ambient} ambient, {chilled} "
        f"chilled and {frozen} "
        f"frozen. Prices apply to deliveries from {valid}.",
        "",
        "## How to read this catalogue",
        "",
        "Every product has a stock code (SKU) of the form HP-XXX-0000: the three letters name the category "
        "and the four digits identify the line. Quote the SKU when you order, query an invoice or ask about "
        "allergens; product names alone are not enough, because several lines have near-identical names. "
        "Case prices are in pounds sterling, exclude VAT and apply to one case of the pack shown. Storage "
        "tells you how the product arrives and how it must be kept until opened.",
        "",
        "The allergens column lists which of the 14 allergens named in UK law the product contains as an "
        "ingredient, as declared on the label at the time this edition went to print. It does not show "
        'precautionary "may contain" statements; those, and the full allergen policy, are in our allergen '
        "information document. Where a recipe has changed this year the column shows the current recipe, so "
        "check the label of any older stock you still hold.",
        "",
        "Case prices are list prices at the start of this edition, before any tier or volume discount. "
        "The weekly price file on the Trade Portal always has the current list price, and your invoice "
        "shows the price you actually pay.",
        "",
        "| Category | Code | Lines |",
        "|---|---|---|",
    ]
    for code, title in CATEGORIES:
        parts.append(f"| {title} | {code} | {counts[code]} |")
    parts.append("")
    for code, title in CATEGORIES:
        parts += [
            f"## {title} ({code})",
            "",
            intros[code],
            "",
            _table([p for p in items if p.category == code]),
            "",
        ]

    parts += [
        "## Near-identical lines: check before you order",
        "",
        "Most ordering mistakes we see involve products that look alike on a screen. These pairs are the "
        "ones our customer service team is asked about most often.",
        "",
        f"- **Mayonnaise.** Real Mayonnaise ({pm['mayo_real'].sku}) contains egg and mustard. Light "
        f"Mayonnaise ({pm['mayo_light'].sku}) contains egg but, since its recipe change this year, no "
        f"mustard. Vegan Mayonnaise ({pm['mayo_vegan'].sku}) is egg-free but contains mustard and soya, and "
        "comes in a smaller 2.27 litre tub.",
        f"- **Mature cheddar.** {pm['cheddar_5kg'].sku} is the 5 kg block and {pm['cheddar_2kg'].sku} is the "
        f"2.5 kg block of the same cheese. Per kilo the {cheaper} block is cheaper, at £{per_kg[0]:.2f} "
        f"against £{per_kg[1]:.2f}.",
        f"- **Sausages.** The premium pork sausages ({pm['sausages'].sku}) contain wheat rusk; the "
        f"gluten-free pork sausages ({pm['gf_sausages'].sku}) use rice flour instead. Both contain "
        "sulphites.",
        f"- **Burger buns.** The brioche buns ({pm['brioche_buns'].sku}) are frozen and contain egg and "
        f"milk; the sesame-topped buns ({pm['sesame_buns'].sku}) are ambient and contain sesame but no "
        "egg or milk.",
        f"- **Prawns.** Raw king prawns ({pm['king_prawns'].sku}) must be cooked thoroughly; the cooked "
        f"peeled prawns ({pm['cooked_prawns'].sku}) only need defrosting in the fridge overnight.",
        f"- **Plant drinks.** The barista oat drink ({pm['oat_barista'].sku}) contains gluten from oats, the "
        f"soya drink ({pm['soya_drink'].sku}) contains soya, and the almond drink ({pm['almond_drink'].sku}) "
        "contains tree nuts. None of them contains milk.",
        "",
        "## Substitutions",
        "",
        "If a product is out of stock we substitute only with the same product in a different pack size, or "
        "with a product whose allergens are identical. We never substitute across an allergen difference "
        f"without phoning you first. You can refuse any substitution at the door, and accounts that prefer "
        f"no substitutions at all can ask the order desk on extension {sub_ext} to set that on their "
        "account.",
        "",
        "## Specification sheets",
        "",
        f"A specification sheet is available for every SKU, with ingredients, nutrition, shelf life and "
        f"country of origin. Email {facts.support_email} with the SKUs you need and we will send the sheets "
        f"within {spec_days} working days.",
        "",
        "## Changes since the last edition",
        "",
        f"Two lines have been discontinued. HP-DAI-00{withdrawn_cheese} Red Leicester (5 kg block) is no "
        "longer made by the creamery and has no direct replacement; the mature cheddar is the nearest "
        f"alternative. HP-DRK-00{withdrawn_juice} Tropical Juice (12 x 1 L) has been replaced by the cloudy "
        f"apple juice ({pm['apple_juice'].sku}). New this edition are the hot-smoked salmon flakes "
        f"({pm['salmon_flakes'].sku}), the sweet potato fries ({pm['sweet_fries'].sku}) and the halloumi "
        f"({pm['halloumi'].sku}).",
        "",
        *_price_changes(draw, pm, edition),
        "",
        f"To order, call {facts.phone}, email {facts.orders_email}, or use the Trade Portal.",
    ]
    return "\n".join(parts)
