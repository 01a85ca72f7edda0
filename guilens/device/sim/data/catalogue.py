"""The shop's wider catalogue: about 330 products over eleven categories, expanded from fixed tables.

Each table row is a product line (a brand's model in a few variants: sizes of a pack, storage,
capacity) with its price per variant. The rule that expands it is fixed: ids are numbered in
table order after the hand-written rows of `apps/shop_data.py`, and a product's rating, review
count and the reviews shown come from a CRC-32 of its name, which is the same on every machine
and Python version (unlike `hash()`). No random source is involved, so the catalogue is identical
on every run, and adding a row only appends products.

Written by hand because it is data: no library holds a shop catalogue whose names fit a phone
screen and whose words do not collide with the queries of the built-in tasks (a new product never
contains all the words of a query those tasks type, so their products stay first).
"""

from __future__ import annotations

import zlib
from typing import Any

SHOE_SIZES = ["7", "8", "9", "10", "11", "12"]
WOMEN_SHOE_SIZES = ["6", "7", "8", "9", "10"]
CLOTHING_SIZES = ["XS", "S", "M", "L", "XL"]

# (brand, name with {v} for the variant, [(variant, price)], keywords, colours, specs ({v} allowed), description)
Line = tuple[str, str, list[tuple[str, float]], list[str], list[str], dict[str, str], str]

_SHOES: list[Line] = [
    ("Hoka", "Hoka Clifton {v} Men's Running Shoes", [("9", 144.95), ("8", 119.95)], ["running", "shoes", "men", "sneakers"],
     ["Black", "Blue"], {"Drop": "5 mm", "Weight": "248 g", "Midsole": "EVA"}, "Light, plush and smooth on the road."),
    ("Saucony", "Saucony Ride {v} Men's Running Shoes", [("17", 139.95), ("16", 114.95)], ["running", "shoes", "men", "sneakers"],
     ["Grey", "Black"], {"Drop": "8 mm", "Weight": "264 g"}, "A dependable daily trainer with a soft ride."),
    ("On", "On Cloudmonster {v} Men's Running Shoes", [("2", 179.99), ("1", 159.99)], ["running", "shoes", "men", "sneakers"],
     ["White", "Black"], {"Drop": "6 mm", "Weight": "275 g"}, "Big cushioning with a rolling stride."),
    ("Hoka", "Hoka Bondi {v} Women's Running Shoes", [("8", 164.95), ("7", 139.95)], ["running", "shoes", "women", "sneakers"],
     ["Pink", "White"], {"Drop": "4 mm", "Weight": "252 g"}, "Maximum cushioning for recovery runs."),
    ("Saucony", "Saucony Kinvara {v} Women's Running Shoes", [("14", 119.95), ("13", 99.95)], ["running", "shoes", "women", "sneakers"],
     ["Blue", "Grey"], {"Drop": "4 mm", "Weight": "210 g"}, "Light and fast for tempo days."),
    ("Timberland", "Timberland {v} Women's Lace-Up Boots", [("Kinsley", 149.00), ("Courmayeur", 169.00)], ["boots", "shoes", "women"],
     ["Wheat", "Black"], {"Upper": "Nubuck", "Waterproof": "Yes"}, "Waterproof leather boots for wet city days."),
    ("Dr. Martens", "Dr. Martens {v} Women's Chelsea Boots", [("2976", 170.00), ("Flora", 160.00)], ["boots", "shoes", "women", "chelsea"],
     ["Black", "Brown"], {"Upper": "Smooth leather", "Sole": "Air-cushioned"}, "Classic pull-on boots with elastic sides."),
    ("UGG", "UGG {v} Women's Winter Boots", [("Classic Short", 180.00), ("Classic Mini", 150.00)], ["boots", "shoes", "women", "winter"],
     ["Chestnut", "Grey"], {"Lining": "Sheepskin", "Sole": "Treadlite"}, "Warm sheepskin boots for cold mornings."),
    ("Clarks", "Clarks {v} Men's Desert Boots", [("Originals", 150.00), ("Bushacre", 110.00)], ["boots", "shoes", "men", "desert"],
     ["Beeswax", "Sand"], {"Upper": "Suede", "Sole": "Crepe"}, "The original crepe-soled chukka."),
    ("Vans", "Vans {v} Skate Shoes", [("Old Skool", 70.00), ("Authentic", 55.00), ("Sk8-Hi", 80.00)], ["skate", "shoes", "sneakers"],
     ["Black", "White", "Navy"], {"Upper": "Canvas and suede", "Sole": "Waffle rubber"}, "Low-key skate classic."),
    ("Converse", "Converse Chuck Taylor All Star {v}", [("Low Top", 65.00), ("High Top", 70.00)], ["sneakers", "shoes", "canvas"],
     ["Black", "White", "Red"], {"Upper": "Canvas", "Sole": "Vulcanised rubber"}, "The canvas sneaker since 1917."),
    ("Birkenstock", "Birkenstock {v} Sandals", [("Arizona", 110.00), ("Boston Clogs", 160.00), ("Gizeh", 100.00)], ["sandals", "shoes"],
     ["Taupe", "Black"], {"Footbed": "Cork-latex", "Upper": "Suede"}, "Contoured cork footbed sandals."),
    ("Merrell", "Merrell Moab 3 {v} Hiking Shoes", [("Men's", 120.00), ("Women's", 115.00)], ["hiking", "shoes", "trail"],
     ["Walnut", "Olive"], {"Waterproof": "No", "Sole": "Vibram"}, "Comfortable hikers straight out of the box."),
    ("Crocs", "Crocs {v} Clogs", [("Classic", 49.99), ("Echo", 64.99)], ["clogs", "shoes"], ["Black", "White", "Lime"],
     {"Material": "Croslite"}, "Light, washable all-day clogs."),
    ("Adidas", "Adidas {v} Sneakers", [("Samba OG", 100.00), ("Gazelle", 100.00), ("Stan Smith", 95.00)], ["sneakers", "shoes", "retro"],
     ["White", "Black", "Green"], {"Upper": "Leather", "Sole": "Gum rubber"}, "A terrace classic with a gum sole."),
    ("Nike", "Nike {v} Sneakers", [("Air Force 1 '07", 115.00), ("Dunk Low Retro", 115.00)], ["sneakers", "shoes", "basketball"],
     ["White", "Black"], {"Upper": "Leather"}, "Court style for every day."),
]

_ELECTRONICS: list[Line] = [
    ("Apple", "Apple AirPods Pro {v}", [("2nd Gen", 249.00)], ["earbuds", "wireless", "bluetooth"], ["White"],
     {"Battery life": "6 hours", "Noise cancelling": "Yes"}, "In-ear buds with adaptive audio."),
    ("Samsung", "Samsung Galaxy Buds {v}", [("3 Pro", 229.99), ("FE", 99.99)], ["earbuds", "wireless", "bluetooth"],
     ["Graphite", "White"], {"Battery life": "7 hours", "Bluetooth": "5.3"}, "Compact buds with rich sound."),
    ("JBL", "JBL {v} Portable Speaker", [("Flip 6", 129.95), ("Charge 5", 179.95), ("Go 4", 49.95)], ["speaker", "bluetooth", "portable"],
     ["Black", "Blue", "Red"], {"Battery life": "12 hours", "Waterproof": "IP67"}, "Loud, rugged speaker for anywhere."),
    ("Anker", "Anker PowerCore {v} Power Bank", [("10000", 25.99), ("20000", 45.99), ("26800", 65.99)], ["charger", "battery", "portable"],
     ["Black"], {"Capacity": "{v} mAh", "Ports": "USB-C, USB-A"}, "Charges a phone several times over."),
    ("Anker", "Anker Nano {v} USB-C Charger", [("30W", 19.99), ("65W", 45.99)], ["charger", "usb"],
     ["White", "Black"], {"Power": "{v}", "Ports": "USB-C"}, "A small fast charger."),
    ("Kindle", "Kindle Paperwhite {v}", [("16GB", 159.99), ("Signature 32GB", 199.99)], ["ereader", "kindle", "reading"],
     ["Black", "Jade"], {"Screen": "7 in", "Storage": "{v}", "Waterproof": "IPX8"}, "Glare-free reading for weeks."),
    ("Samsung", "Samsung Galaxy Tab {v}", [("S9 FE", 449.99), ("A9+", 219.99)], ["tablet", "android"], ["Graphite", "Silver"],
     {"Screen": "11 in", "Storage": "128 GB"}, "A family tablet for reading and streaming."),
    ("Apple", "Apple iPad {v}", [("10th Gen 64GB", 349.00), ("Air 128GB", 599.00)], ["tablet", "ipad"], ["Silver", "Blue"],
     {"Screen": "10.9 in", "Storage": "{v}"}, "Colourful all-screen tablet."),
    ("Google", "Google Pixel {v} Smartphone", [("8a 128GB", 499.00), ("8 256GB", 699.00)], ["phone", "smartphone", "android"],
     ["Obsidian", "Porcelain"], {"Storage": "{v}", "Screen": "6.1 in OLED"}, "Smart camera, clean Android."),
    ("Samsung", "Samsung Galaxy {v} Smartphone", [("A55 128GB", 449.99), ("S24 256GB", 859.99)], ["phone", "smartphone", "android"],
     ["Navy", "Lilac"], {"Storage": "{v}", "Screen": "6.2 in AMOLED"}, "Bright display and long battery life."),
    ("Garmin", "Garmin Forerunner {v} GPS Watch", [("165", 249.99), ("265", 449.99), ("55", 199.99)], ["watch", "running", "gps"],
     ["Black", "White"], {"Battery life": "11 days", "GPS": "Multi-band"}, "A running watch with training plans."),
    ("Fitbit", "Fitbit {v} Fitness Tracker", [("Charge 6", 159.95), ("Inspire 3", 99.95)], ["tracker", "fitness", "watch"],
     ["Black", "Coral"], {"Battery life": "7 days", "Heart rate": "Yes"}, "Tracks steps, sleep and heart rate."),
    ("Logitech", "Logitech {v} Wireless Keyboard", [("K380", 39.99), ("MX Keys S", 109.99)], ["keyboard", "wireless", "computer"],
     ["Graphite", "Rose"], {"Connection": "Bluetooth", "Battery": "24 months"}, "Quiet typing on any device."),
    ("SanDisk", "SanDisk Extreme {v} microSD Card", [("128GB", 19.99), ("256GB", 32.99), ("512GB", 54.99)], ["memory", "card", "storage"],
     ["Red"], {"Capacity": "{v}", "Speed": "190 MB/s"}, "Fast card for phones and cameras."),
    ("Samsung", "Samsung T7 {v} Portable SSD", [("1TB", 99.99), ("2TB", 169.99)], ["ssd", "storage", "drive"], ["Grey", "Blue"],
     {"Capacity": "{v}", "Speed": "1050 MB/s"}, "Pocket-sized fast storage."),
    ("Dell", "Dell {v} Monitor", [("24 in S2421HN", 129.99), ("27 in S2721QS", 279.99)], ["monitor", "computer", "screen"],
     ["Black"], {"Size": "{v}", "Refresh": "75 Hz"}, "A thin-bezel monitor for home offices."),
    ("Canon", "Canon EOS {v} Camera", [("R50 Kit", 799.99), ("R10 Body", 979.00)], ["camera", "mirrorless", "photo"],
     ["Black"], {"Sensor": "24 MP APS-C", "Video": "4K"}, "A light camera that grows with you."),
    ("Sonos", "Sonos {v} Speaker", [("Era 100", 249.00), ("Roam 2", 179.00), ("Move 2", 449.00)], ["speaker", "wifi", "smart"],
     ["Black", "White"], {"Voice control": "Yes", "Stereo pairing": "Yes"}, "Room-filling sound with app control."),
]

_HOME: list[Line] = [
    ("Greenhaven", "Greenhaven {v} Garden Bench", [("Acacia", 229.00), ("Steel", 179.00)], ["bench", "outdoor", "garden"],
     ["Natural", "Green"], {"Seats": "3", "Material": "{v}"}, "A weather-proof bench for the garden."),
    ("Greenhaven", "Greenhaven Patio Umbrella {v}", [("2.7 m", 119.00), ("3 m Tilting", 159.00)], ["umbrella", "outdoor", "garden", "patio"],
     ["Beige", "Navy"], {"Canopy": "{v}", "UV protection": "UPF 50"}, "Shade for a table of six."),
    ("Ikea", "Ikea {v} Bookcase", [("Billy", 69.00), ("Kallax", 89.00), ("Hemnes", 199.00)], ["bookcase", "shelf", "furniture"],
     ["White", "Black"], {"Material": "Particleboard"}, "A bookcase that fits any room."),
    ("Ikea", "Ikea {v} Desk Lamp", [("Forsa", 29.99), ("Tertial", 19.99)], ["lamp", "desk", "light"], ["Black", "Silver"],
     {"Bulb": "E12 LED", "Arm": "Adjustable"}, "An adjustable lamp for reading and work."),
    ("Casper", "Casper {v} Pillow", [("Original", 65.00), ("Foam", 89.00)], ["pillow", "bedroom", "sleep"], ["White"],
     {"Fill": "Microfibre", "Size": "Standard"}, "Supportive pillow for every sleeper."),
    ("Brooklinen", "Brooklinen Luxe Sheet Set {v}", [("Queen", 179.00), ("King", 209.00)], ["sheets", "bedding", "bedroom"],
     ["White", "Grey", "Navy"], {"Material": "Cotton sateen", "Size": "{v}"}, "Buttery smooth sateen sheets."),
    ("Dyson", "Dyson {v} Cordless Vacuum", [("V8", 349.99), ("V12 Detect", 649.99)], ["vacuum", "cleaning", "cordless"],
     ["Silver", "Yellow"], {"Run time": "40 min", "Bin": "0.5 L"}, "Powerful suction without a cord."),
    ("iRobot", "iRobot Roomba {v} Robot Vacuum", [("i3", 249.99), ("j7", 449.99)], ["vacuum", "robot", "cleaning"], ["Black"],
     {"Run time": "75 min", "App": "Yes"}, "Cleans on a schedule while you are out."),
    ("Philips", "Philips Hue {v} Smart Bulbs", [("White 2-Pack", 29.99), ("Colour 3-Pack", 119.99)], ["bulb", "light", "smart"],
     ["White"], {"Fitting": "E26", "Hub": "Bluetooth or Bridge"}, "App-controlled bulbs for every room."),
    ("Nest", "Google Nest {v} Thermostat", [("Learning", 279.00), ("Basic", 129.99)], ["thermostat", "smart", "heating"],
     ["Silver", "Snow"], {"Display": "Colour", "App": "Yes"}, "Saves energy by learning your schedule."),
    ("Umbra", "Umbra {v} Wall Clock", [("Oh", 35.00), ("Marion", 45.00)], ["clock", "wall", "decor"], ["Black", "Brass"],
     {"Diameter": "30 cm", "Movement": "Silent"}, "A quiet clock with a clean face."),
    ("Ikea", "Ikea {v} Sofa", [("Kivik 3-Seat", 799.00), ("Ektorp 2-Seat", 549.00)], ["sofa", "couch", "furniture"],
     ["Grey", "Beige"], {"Cover": "Washable"}, "A deep, comfortable sofa."),
    ("Yankee Candle", "Yankee Candle {v} Jar Candle", [("Clean Cotton", 29.99), ("Balsam & Cedar", 29.99), ("Vanilla Cupcake", 27.99)],
     ["candle", "scented", "decor"], [], {"Burn time": "110 hours"}, "A long-burning scented candle."),
]

_KITCHEN: list[Line] = [
    ("Breville", "Breville {v} Espresso Machine", [("Bambino", 299.95), ("Barista Express", 699.95)], ["espresso", "coffee", "machine"],
     ["Silver", "Black"], {"Pump": "15 bar", "Grinder": "No"}, "Cafe-style espresso at home."),
    ("Nespresso", "Nespresso {v} Capsule Machine", [("Vertuo Next", 169.00), ("Essenza Mini", 129.00)], ["coffee", "capsule", "machine"],
     ["Black", "Red"], {"Water tank": "1.1 L"}, "One-touch coffee from capsules."),
    ("Bodum", "Bodum Chambord French Press {v}", [("350 ml", 29.99), ("1 L", 44.99)], ["coffee", "press", "french"],
     ["Chrome", "Copper"], {"Capacity": "{v}", "Material": "Glass"}, "The classic French press."),
    ("Instant Pot", "Instant Pot Duo {v} Pressure Cooker", [("3 Qt", 79.99), ("6 Qt", 99.99), ("8 Qt", 129.99)],
     ["pressure", "cooker", "kitchen"], ["Silver"], {"Capacity": "{v}", "Programs": "13"}, "Seven appliances in one pot."),
    ("Ninja", "Ninja {v} Air Fryer", [("AF101 4 Qt", 99.99), ("Foodi 8 Qt", 179.99)], ["air", "fryer", "kitchen"], ["Grey", "Black"],
     {"Capacity": "{v}", "Power": "1550 W"}, "Crispy food with little oil."),
    ("Vitamix", "Vitamix {v} Blender", [("E310", 349.95), ("5200", 479.95)], ["blender", "kitchen", "smoothie"], ["Black", "Red"],
     {"Jar": "1.4 L", "Power": "2 hp"}, "Smoothies, soups and nut butters."),
    ("KitchenAid", "KitchenAid Artisan {v} Stand Mixer", [("4.8 L", 449.99), ("Mini 3.3 L", 379.99)], ["mixer", "baking", "kitchen"],
     ["Empire Red", "Silver", "Pistachio"], {"Bowl": "{v}", "Speeds": "10"}, "The mixer bakers keep for decades."),
    ("Lodge", "Lodge Cast Iron Skillet {v}", [("10 in", 24.90), ("12 in", 34.90)], ["skillet", "pan", "cast", "iron"], ["Black"],
     {"Size": "{v}", "Seasoned": "Yes"}, "Pre-seasoned skillet for a lifetime."),
    ("Tefal", "Tefal Non-Stick Frying Pan {v}", [("24 cm", 29.99), ("28 cm", 39.99)], ["pan", "frying", "nonstick"], ["Black"],
     {"Size": "{v}", "Induction": "Yes"}, "Eggs slide right off."),
    ("Victorinox", "Victorinox Fibrox {v} Knife", [("Chef's 8 in", 49.99), ("Paring 4 in", 12.99), ("Bread 10 in", 44.99)],
     ["knife", "kitchen"], ["Black"], {"Blade": "Stainless steel"}, "Sharp, well-balanced and easy to hold."),
    ("OXO", "OXO Good Grips {v} Storage Set", [("4-Piece", 49.99), ("10-Piece", 99.99)], ["containers", "storage", "kitchen"],
     ["Clear"], {"Pieces": "{v}", "BPA free": "Yes"}, "Airtight containers that stack."),
    ("Zojirushi", "Zojirushi {v} Rice Cooker", [("3-Cup", 139.99), ("5.5-Cup", 189.99)], ["rice", "cooker", "kitchen"],
     ["White"], {"Capacity": "{v}", "Fuzzy logic": "Yes"}, "Perfect rice, kept warm for hours."),
    ("Le Creuset", "Le Creuset Dutch Oven {v}", [("4.2 L", 379.95), ("5.3 L", 419.95)], ["dutch", "oven", "pot", "cast", "iron"],
     ["Cerise", "Marseille", "Sage"], {"Capacity": "{v}", "Oven safe": "250 C"}, "Enamelled cast iron for slow cooking."),
    ("Cuisinart", "Cuisinart {v} Toaster", [("2-Slice", 49.95), ("4-Slice", 79.95)], ["toaster", "kitchen", "breakfast"],
     ["Silver", "Black"], {"Settings": "6 shades"}, "Even toast with a bagel setting."),
]

_CLOTHING: list[Line] = [
    ("Levi's", "Levi's {v} Men's Jeans", [("501 Original", 79.50), ("511 Slim", 69.50)], ["jeans", "denim", "men"],
     ["Indigo", "Black"], {"Material": "99% cotton", "Fit": "{v}"}, "Jeans that get better with wear."),
    ("Levi's", "Levi's {v} Women's Jeans", [("Wedgie Straight", 98.00), ("721 Skinny", 79.50)], ["jeans", "denim", "women"],
     ["Indigo", "Light Blue"], {"Material": "Stretch denim"}, "A flattering high rise."),
    ("Patagonia", "Patagonia {v} Fleece Jacket", [("Better Sweater", 149.00), ("Synchilla", 139.00)], ["fleece", "jacket", "outdoor"],
     ["Navy", "Grey", "Green"], {"Material": "Recycled polyester"}, "Warm fleece for cool evenings."),
    ("The North Face", "The North Face {v} Rain Jacket", [("Venture 2", 99.00), ("Antora", 110.00)], ["rain", "jacket", "waterproof"],
     ["Black", "Red", "Blue"], {"Waterproof": "DryVent 2L", "Hood": "Yes"}, "Packable shell for wet days."),
    ("Uniqlo", "Uniqlo {v} Sweater", [("Merino Crew", 39.90), ("Cashmere V-Neck", 99.90)], ["sweater", "knit", "wool"],
     ["Grey", "Navy", "Beige"], {"Material": "{v}"}, "A soft knit for layering."),
    ("Uniqlo", "Uniqlo AIRism {v}", [("Oversized Tee", 19.90), ("Polo Shirt", 29.90)], ["tee", "polo", "summer"],
     ["White", "Black", "Olive"], {"Material": "Quick-dry blend"}, "Cool and smooth on hot days."),
    ("Hanes", "Hanes {v} Socks", [("Crew 6-Pack", 14.99), ("Ankle 10-Pack", 19.99)], ["socks", "cotton"], ["White", "Black"],
     {"Pack": "{v}"}, "Everyday cushioned socks."),
    ("Champion", "Champion {v} Hoodie", [("Reverse Weave", 65.00), ("Powerblend", 45.00)], ["hoodie", "sweatshirt"],
     ["Grey", "Navy", "Black"], {"Material": "Cotton blend"}, "A heavyweight hoodie that lasts."),
    ("Lululemon", "Lululemon {v} Leggings", [("Align 25 in", 98.00), ("Wunder Train", 98.00)], ["leggings", "yoga", "women"],
     ["Black", "Navy"], {"Material": "Nulu fabric"}, "Buttery-soft leggings for yoga."),
    ("Columbia", "Columbia {v} Winter Parka", [("Omni-Heat", 189.99), ("Suttle Mountain", 159.99)], ["parka", "coat", "winter"],
     ["Black", "Green"], {"Insulation": "Synthetic", "Hood": "Yes"}, "Stays warm below freezing."),
    ("Carhartt", "Carhartt {v} Beanie", [("Watch Hat", 19.99), ("Knit Cuffed", 21.99)], ["beanie", "hat", "winter"],
     ["Brown", "Black", "Orange"], {"Material": "Acrylic rib knit"}, "A warm knit hat that keeps its shape."),
    ("Nike", "Nike Dri-FIT {v} Shorts", [("Challenger", 45.00), ("Totality", 40.00)], ["shorts", "training", "gym"],
     ["Black", "Grey"], {"Material": "Dri-FIT polyester"}, "Light shorts for workouts."),
]

_BAGS: list[Line] = [
    ("Herschel", "Herschel {v} Backpack", [("Little America", 109.99), ("Heritage", 64.99), ("Settlement", 69.99)],
     ["backpack", "bag", "school"], ["Black", "Navy", "Ash Rose"], {"Laptop sleeve": "15 in"}, "A classic backpack for every day."),
    ("Samsonite", "Samsonite {v} Spinner Suitcase", [("Carry-On", 169.99), ("Medium", 219.99), ("Large", 259.99)],
     ["suitcase", "luggage", "travel"], ["Black", "Blue"], {"Wheels": "4 spinner", "Lock": "TSA"}, "Hard-side luggage that glides."),
    ("Fjallraven", "Fjallraven Kanken {v}", [("Classic", 80.00), ("Mini", 70.00), ("Laptop 15", 110.00)], ["backpack", "bag"],
     ["Frost Green", "Ox Red", "Navy"], {"Material": "Vinylon F"}, "The boxy Swedish daypack."),
    ("Patagonia", "Patagonia Black Hole {v} Duffel", [("40L", 159.00), ("55L", 179.00)], ["duffel", "bag", "travel"],
     ["Black", "Blue"], {"Volume": "{v}"}, "Tough duffel that packs small."),
    ("Bellroy", "Bellroy {v} Wallet", [("Note Sleeve", 89.00), ("Hide & Seek", 79.00)], ["wallet", "leather"], ["Black", "Cocoa"],
     {"Material": "Leather", "Cards": "4-11"}, "A slim wallet that holds more than it looks."),
    ("Kate Spade", "Kate Spade {v} Tote", [("Manhattan", 298.00), ("Sam", 248.00)], ["tote", "bag", "women"], ["Black", "Pink"],
     {"Material": "Leather"}, "A structured tote for work."),
    ("Osprey", "Osprey {v} Hiking Pack", [("Talon 22", 150.00), ("Atmos 65", 300.00)], ["backpack", "hiking", "outdoor"],
     ["Green", "Blue"], {"Volume": "{v}"}, "A ventilated pack for the trail."),
    ("Tumi", "Tumi Alpha {v}", [("Brief Pack", 595.00), ("Slim Backpack", 495.00)], ["backpack", "business", "laptop"],
     ["Black"], {"Material": "Ballistic nylon"}, "A polished bag for work trips."),
    ("Eastpak", "Eastpak {v} Backpack", [("Padded Pak'r", 50.00), ("Out Of Office", 60.00)], ["backpack", "bag", "school"],
     ["Black", "Navy", "Red"], {"Volume": "24 L"}, "A simple backpack with a 30-year warranty."),
]

_BOOKS: list[Line] = [
    ("Penguin", "{v}", [("Atomic Habits by James Clear", 16.99), ("Thinking, Fast and Slow", 13.99),
                        ("Sapiens by Yuval Noah Harari", 18.99), ("The Psychology of Money", 15.49)],
     ["book", "nonfiction", "paperback"], [], {"Format": "Paperback", "Language": "English"}, "A bestseller everyone is talking about."),
    ("Vintage", "{v}", [("Project Hail Mary by Andy Weir", 14.99), ("The Martian by Andy Weir", 11.99),
                        ("Dune by Frank Herbert", 10.99), ("Klara and the Sun", 13.99)],
     ["book", "novel", "fiction", "paperback"], [], {"Format": "Paperback", "Language": "English"}, "A modern classic of fiction."),
    ("Lonely Planet", "Lonely Planet {v} Travel Guide", [("Japan", 29.99), ("Italy", 27.99), ("Portugal", 24.99), ("Mexico", 26.99)],
     ["book", "travel", "guide"], [], {"Format": "Paperback", "Edition": "2026"}, "Maps, itineraries and local tips."),
    ("O'Reilly", "{v}", [("Fluent Python, 2nd Edition", 59.99), ("Designing Data-Intensive Applications", 49.99),
                        ("Learning SQL, 3rd Edition", 44.99)],
     ["book", "programming", "computer"], [], {"Format": "Paperback", "Pages": "700"}, "A practical guide from the experts."),
    ("Ten Speed", "{v}", [("Salt, Fat, Acid, Heat", 22.49), ("The Food Lab", 34.99), ("Ottolenghi Simple", 24.99)],
     ["book", "cookbook", "cooking"], [], {"Format": "Hardcover"}, "Recipes and the reasons behind them."),
    ("Scholastic", "{v}", [("Harry Potter Box Set", 59.99), ("Dog Man: Big Jim Begins", 9.99), ("Wings of Fire Box Set", 44.99)],
     ["book", "children", "kids"], [], {"Format": "Paperback", "Ages": "8-12"}, "A favourite for young readers."),
    ("Moleskine", "Moleskine Classic {v} Notebook", [("Large Ruled", 22.95), ("Pocket Dotted", 18.95)], ["notebook", "journal"],
     ["Black", "Sapphire"], {"Pages": "240"}, "The notebook of artists and writers."),
    ("HarperCollins", "{v}", [("The Alchemist by Paulo Coelho", 12.99), ("To Kill a Mockingbird", 10.99), ("Brave New World", 11.49)],
     ["book", "novel", "classic", "paperback"], [], {"Format": "Paperback", "Language": "English"}, "A story read around the world."),
]

_TOYS: list[Line] = [
    ("LEGO", "LEGO {v}", [("Classic Creative Brick Box", 34.99), ("Technic Race Car", 49.99), ("Star Wars X-Wing", 59.99),
                         ("City Fire Station", 99.99), ("Botanical Bonsai Tree", 49.99)],
     ["lego", "building", "kids", "toy"], [], {"Ages": "7+", "Pieces": "500+"}, "Build it, play with it, rebuild it."),
    ("Hasbro", "{v} Board Game", [("Monopoly Classic", 19.99), ("Clue", 21.99), ("Scrabble", 19.99), ("Connect 4", 12.99)],
     ["game", "board", "family"], [], {"Players": "2-6", "Ages": "8+"}, "Game night for the whole family."),
    ("Catan", "Catan {v}", [("Base Game", 49.00), ("Seafarers Expansion", 44.00)], ["game", "board", "strategy"], [],
     {"Players": "3-4", "Playing time": "60-90 min"}, "Trade, build and settle the island."),
    ("Ravensburger", "Ravensburger {v} Puzzle", [("1000-Piece Map", 24.99), ("500-Piece Garden", 16.99)], ["puzzle", "jigsaw"], [],
     {"Pieces": "{v}"}, "A puzzle with a perfect fit."),
    ("Melissa & Doug", "Melissa & Doug {v}", [("Wooden Train Set", 59.99), ("Pretend Play Kitchen", 129.99)],
     ["toy", "kids", "wooden", "pretend"], [], {"Ages": "3+"}, "Classic wooden toys for imaginative play."),
    ("Nintendo", "Nintendo Switch {v}", [("OLED Console", 349.99), ("Lite Console", 199.99), ("Pro Controller", 69.99)],
     ["nintendo", "switch", "console", "gaming"], ["White", "Red"], {"Storage": "64 GB"}, "Play at home or on the go."),
    ("Crayola", "Crayola {v}", [("64-Count Crayons", 6.99), ("Inspiration Art Case", 29.99)], ["art", "crayons", "kids"], [],
     {"Ages": "3+", "Non-toxic": "Yes"}, "Bright colours for young artists."),
    ("Squishmallows", "Squishmallows {v} Plush", [("8 in Cam the Cat", 12.99), ("16 in Wendy the Frog", 24.99)], ["plush", "toy", "kids"],
     [], {"Material": "Polyester spandex"}, "A squishy friend to collect."),
    ("Hot Wheels", "Hot Wheels {v}", [("20-Car Gift Pack", 21.99), ("Track Builder Set", 29.99)], ["cars", "toy", "kids"], [],
     {"Ages": "3+", "Scale": "1:64"}, "Die-cast cars built for speed."),
]

_SPORTS: list[Line] = [
    ("Manduka", "Manduka {v} Yoga Mat", [("PRO 6mm", 129.00), ("begin 5mm", 49.00)], ["yoga", "mat", "fitness"],
     ["Black", "Purple"], {"Thickness": "{v}", "Length": "180 cm"}, "A grippy mat that lasts."),
    ("Bowflex", "Bowflex SelectTech {v} Dumbbells", [("552", 429.00), ("1090", 799.00)], ["dumbbells", "weights", "fitness"],
     ["Black"], {"Range": "2-24 kg"}, "Fifteen dumbbells in one pair."),
    ("Hydro Flask", "Hydro Flask {v} Water Bottle", [("21 oz", 34.95), ("32 oz", 44.95), ("40 oz", 49.95)], ["bottle", "water", "insulated"],
     ["Black", "Pacific", "White"], {"Capacity": "{v}", "Insulated": "Yes"}, "Cold for 24 hours."),
    ("Wilson", "Wilson {v} Ball", [("NBA Basketball", 29.99), ("NFL Football", 24.99), ("Tennis 4-Ball Can", 6.99)], ["ball", "sports"],
     [], {"Size": "Official"}, "Game-ready feel and grip."),
    ("Coleman", "Coleman {v} Tent", [("Sundome 4-Person", 99.99), ("Skydome 6-Person", 149.99)], ["tent", "camping", "outdoor"],
     ["Green", "Blue"], {"Setup": "10 min", "Waterproof": "WeatherTec"}, "Easy setup for weekend camping."),
    ("Yeti", "Yeti {v} Cooler", [("Tundra 45", 325.00), ("Hopper Flip 12", 250.00)], ["cooler", "camping", "outdoor"],
     ["White", "Navy"], {"Capacity": "{v}"}, "Keeps ice for days."),
    ("Trek", "Trek {v} Bike", [("FX 2 Hybrid", 899.99), ("Marlin 5 Mountain", 749.99)], ["bike", "bicycle", "cycling"],
     ["Black", "Red"], {"Frame": "Aluminium", "Gears": "16"}, "A versatile bike for town and trail."),
    ("Giro", "Giro {v} Bike Helmet", [("Register MIPS", 64.95), ("Syntax MIPS", 149.95)], ["helmet", "cycling", "bike"],
     ["Black", "White"], {"Safety": "MIPS"}, "Light, ventilated and safe."),
    ("TRX", "TRX {v} Suspension Trainer", [("HOME2", 169.95), ("PRO4", 249.95)], ["fitness", "training", "home"], ["Black"],
     {"Anchors": "Door and overhead"}, "A full-body workout anywhere."),
    ("Everlast", "Everlast {v} Boxing Gloves", [("Pro Style 12 oz", 29.99), ("Elite 14 oz", 49.99)], ["boxing", "gloves", "fitness"],
     ["Black", "Red"], {"Weight": "{v}"}, "Padded gloves for bag work."),
]

_BEAUTY: list[Line] = [
    ("CeraVe", "CeraVe {v}", [("Moisturizing Cream 16 oz", 17.99), ("Hydrating Facial Cleanser", 15.99), ("AM Facial Lotion SPF 30", 18.99)],
     ["skincare", "moisturizer", "face"], [], {"Skin type": "All"}, "Dermatologist-developed with ceramides."),
    ("The Ordinary", "The Ordinary {v}", [("Niacinamide 10% Serum", 6.50), ("Hyaluronic Acid 2% Serum", 8.90),
                                          ("Glycolic Acid 7% Toner", 13.00)],
     ["skincare", "serum", "face"], [], {"Volume": "30 ml"}, "Simple formulas at honest prices."),
    ("La Roche-Posay", "La Roche-Posay Anthelios {v} Sunscreen", [("SPF 50 Fluid", 36.99), ("SPF 60 Melt-In", 37.99)],
     ["sunscreen", "spf", "skincare"], [], {"Volume": "50 ml", "Water resistant": "Yes"}, "High protection, light feel."),
    ("Dyson", "Dyson Supersonic {v} Hair Dryer", [("Origin", 399.99), ("Nural", 499.99)], ["hair", "dryer"], ["Fuchsia", "Black"],
     {"Power": "1600 W", "Attachments": "3"}, "Fast drying without extreme heat."),
    ("Philips", "Philips Norelco {v} Shaver", [("Series 5000", 89.99), ("Series 9000", 199.99)], ["shaver", "men", "grooming"],
     ["Black", "Chrome"], {"Run time": "60 min", "Wet and dry": "Yes"}, "A close, comfortable shave."),
    ("Oral-B", "Oral-B {v} Electric Toothbrush", [("Pro 1000", 49.99), ("iO Series 5", 149.99)], ["toothbrush", "electric", "dental"],
     ["White", "Black"], {"Modes": "3", "Battery": "2 weeks"}, "Cleans better than a manual brush."),
    ("Olaplex", "Olaplex No. {v}", [("3 Hair Perfector", 30.00), ("4 Bond Shampoo", 30.00), ("5 Bond Conditioner", 30.00)],
     ["hair", "shampoo", "care"], [], {"Volume": "250 ml"}, "Repairs and strengthens damaged hair."),
    ("Maybelline", "Maybelline {v}", [("Lash Sensational Mascara", 11.99), ("Fit Me Foundation", 9.99), ("SuperStay Lipstick", 12.49)],
     ["makeup", "cosmetics"], ["Black", "Nude", "Red"], {"Cruelty free": "Yes"}, "Everyday makeup that stays put."),
    ("Neutrogena", "Neutrogena {v}", [("Hydro Boost Water Gel", 19.99), ("Ultra Sheer Sunscreen SPF 70", 11.99)],
     ["skincare", "face"], [], {"Oil free": "Yes"}, "Light, oil-free daily care."),
]

_GROCERY: list[Line] = [
    ("Lavazza", "Lavazza {v} Whole Bean Coffee", [("Super Crema 1 kg", 23.99), ("Qualita Oro 500 g", 14.99)], ["coffee", "beans", "espresso"],
     [], {"Roast": "Medium", "Weight": "{v}"}, "Smooth Italian espresso blend."),
    ("Stumptown", "Stumptown {v} Ground Coffee", [("Hair Bender 12 oz", 16.99), ("Holler Mountain 12 oz", 16.99)], ["coffee", "ground"],
     [], {"Roast": "Medium"}, "Small-batch roasted in Portland."),
    ("Twinings", "Twinings {v} Tea, 100 Bags", [("English Breakfast", 9.99), ("Earl Grey", 9.99), ("Chamomile", 8.49)], ["tea", "bags"],
     [], {"Bags": "100"}, "A cup of comfort since 1706."),
    ("Kind", "KIND {v} Bars, 12 Pack", [("Dark Chocolate Nuts", 17.99), ("Peanut Butter", 17.99)], ["snack", "bars", "nuts"], [],
     {"Pack": "12 bars", "Gluten free": "Yes"}, "Nuts you can see and pronounce."),
    ("Barilla", "Barilla {v} Pasta, 6 Pack", [("Spaghetti", 9.49), ("Penne", 9.49), ("Protein+ Rotini", 14.99)], ["pasta", "dinner"], [],
     {"Pack": "6 x 454 g"}, "Italy's number one pasta."),
    ("Rao's", "Rao's Homemade {v} Sauce", [("Marinara", 8.99), ("Arrabbiata", 8.99), ("Tomato Basil", 8.99)], ["sauce", "pasta", "tomato"],
     [], {"Jar": "24 oz"}, "Slow-cooked Italian tomato sauce."),
    ("Kirkland", "Kirkland {v}", [("Organic Maple Syrup 1 L", 14.99), ("Extra Virgin Olive Oil 2 L", 19.99), ("Mixed Nuts 1.1 kg", 17.99)],
     ["pantry", "organic"], [], {"Size": "Family"}, "Pantry staples in family sizes."),
    ("Ghirardelli", "Ghirardelli {v} Chocolate", [("72% Dark Squares", 12.99), ("Milk Caramel Squares", 12.99)], ["chocolate", "sweets"], [],
     {"Weight": "300 g"}, "Rich San Francisco chocolate."),
    ("General Mills", "{v} Cereal, Family Size", [("Cheerios", 5.99), ("Honey Nut Cheerios", 6.49)], ["cereal", "breakfast"], [],
     {"Weight": "549 g"}, "A breakfast staple."),
    ("Bonne Maman", "Bonne Maman {v} Preserves", [("Strawberry", 6.49), ("Apricot", 6.49), ("Raspberry", 6.49)], ["jam", "preserves"],
     [], {"Jar": "370 g"}, "French fruit preserves."),
]

CATEGORIES: list[tuple[str, list[Line]]] = [
    ("Shoes", _SHOES), ("Electronics", _ELECTRONICS), ("Home", _HOME), ("Kitchen", _KITCHEN), ("Clothing", _CLOTHING),
    ("Bags", _BAGS), ("Books", _BOOKS), ("Toys", _TOYS), ("Sports", _SPORTS), ("Beauty", _BEAUTY), ("Grocery", _GROCERY),
]

_AUTHORS = ["Jordan", "Priya", "Marco", "Lena", "Sam", "Aiko", "Tomás", "Grace", "Omar", "Hannah", "Wei", "Nora", "Felix", "Zoe"]
_REVIEW_TEXTS = [
    (5, "Exactly what I hoped for. Would buy again."),
    (5, "Great quality, arrived two days early."),
    (4, "Very good overall; the packaging could be better."),
    (4, "Does the job well for the price."),
    (3, "Fine, but nothing special for what it costs."),
    (3, "Took a while to get used to."),
    (2, "Not as described in the photos."),
    (5, "My second one. Still the best I have owned."),
    (4, "Solid and well made. Happy with it."),
    (1, "Broke within a month; returned it."),
]


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _sizes(category: str, name: str) -> list[str]:
    if category == "Shoes":
        return list(WOMEN_SHOE_SIZES if "Women's" in name else SHOE_SIZES)
    if category == "Clothing" and not any(w in name for w in ("Socks", "Beanie")):
        return list(CLOTHING_SIZES)
    return []


def _reviews(name: str) -> list[dict[str, Any]]:
    h = _crc(name)
    out = []
    for k in range(3):
        rating, text = _REVIEW_TEXTS[(h + 3 * k) % len(_REVIEW_TEXTS)]
        out.append({"author": _AUTHORS[(h // 7 + k * 5) % len(_AUTHORS)], "rating": rating, "text": text})
    return out


def catalogue_rows(first_id: int) -> list[dict[str, Any]]:
    """The expanded catalogue as product dicts (the shape of `apps.shop.Product`), ids from `p<first_id>`."""
    out: list[dict[str, Any]] = []
    n = first_id
    for category, lines in CATEGORIES:
        for brand, template, variants, keywords, colors, specs, desc in lines:
            for variant, price in variants:
                name = template.format(v=variant)
                h = _crc(name)
                out.append({
                    "id": f"p{n}", "name": name, "brand": brand, "category": category, "price": price,
                    "rating": round(3.6 + (h % 14) / 10, 1), "review_count": 12 + (h >> 8) % 9000,
                    "sizes": _sizes(category, name), "colors": list(colors),
                    "specs": {k: v.format(v=variant) for k, v in specs.items()}, "description": desc,
                    "keywords": [category.lower(), *keywords], "reviews": _reviews(name),
                })
                n += 1
    return out
