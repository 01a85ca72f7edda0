"""Web-search facts beyond the Search app's first eight: stocks, exchange rates, opening hours,
addresses, heights, populations, flights, weather and events, as a search engine's answer cards
give them. Fixed values, dated to the sim's default day (Nov 21, 2026), in the `Fact` shape.
"""

from __future__ import annotations

from typing import Any

# (keyword phrases, title, fact, snippet, url)
_ROWS: list[tuple[list[str], str, str, str, str]] = [
    (["microsoft stock", "msft"], "Microsoft Corporation (MSFT) Stock Price", "$478.12",
     "NASDAQ: MSFT · +3.05 (0.64%) today · Market cap 3.55T", "finance.example.com/quote/MSFT"),
    (["tesla stock", "tsla"], "Tesla, Inc. (TSLA) Stock Price", "$352.60",
     "NASDAQ: TSLA · -7.18 (2.00%) today · Market cap 1.13T", "finance.example.com/quote/TSLA"),
    (["amazon stock", "amzn"], "Amazon.com, Inc. (AMZN) Stock Price", "$221.35",
     "NASDAQ: AMZN · +1.12 (0.51%) today · Market cap 2.33T", "finance.example.com/quote/AMZN"),
    (["alphabet stock", "google stock", "googl"], "Alphabet Inc. (GOOGL) Stock Price", "$201.77",
     "NASDAQ: GOOGL · +0.96 (0.48%) today · Market cap 2.47T", "finance.example.com/quote/GOOGL"),
    (["usd gbp", "dollar pound", "usd to gbp"], "1 US Dollar equals", "0.7893 British Pound",
     "USD to GBP exchange rate · Nov 21, 09:00 UTC", "fx.example.com/usd-gbp"),
    (["usd jpy", "dollar yen", "usd to jpy"], "1 US Dollar equals", "154.32 Japanese Yen",
     "USD to JPY exchange rate · Nov 21, 09:00 UTC", "fx.example.com/usd-jpy"),
    (["bitcoin price", "btc"], "Bitcoin (BTC) Price", "$91,240.55", "24h change -1.8% · Market cap 1.81T",
     "crypto.example.com/btc"),
    (["golden gate bridge length", "golden gate bridge"], "Golden Gate Bridge", "2,737 m long",
     "Suspension bridge opened in 1937, spanning the Golden Gate strait.", "wiki.example.org/Golden_Gate_Bridge"),
    (["eiffel tower height", "eiffel tower"], "Eiffel Tower", "330 m",
     "Wrought-iron tower on the Champ de Mars, Paris, completed in 1889.", "wiki.example.org/Eiffel_Tower"),
    (["empire state building height", "empire state building"], "Empire State Building", "443 m",
     "Art Deco skyscraper in Midtown Manhattan, completed in 1931.", "wiki.example.org/Empire_State_Building"),
    (["mont blanc height", "mont blanc"], "Mont Blanc", "4,806 m",
     "The highest mountain of the Alps, on the French-Italian border.", "wiki.example.org/Mont_Blanc"),
    (["london population"], "London - Population", "8.95 million",
     "Population of Greater London, 2025 estimate.", "stats.example.org/london"),
    (["new york population", "nyc population"], "New York City - Population", "8.48 million",
     "Population of the five boroughs, 2025 estimate.", "stats.example.org/new-york"),
    (["berlin population"], "Berlin - Population", "3.88 million", "Population of the city-state of Berlin, 2025 estimate.",
     "stats.example.org/berlin"),
    (["british museum hours", "british museum opening", "british museum"], "British Museum - Opening hours",
     "10:00-17:00 daily", "Great Russell St, London WC1B 3DG · Fridays until 20:30", "britishmuseum.example.org/visit"),
    (["moma hours", "moma opening", "museum of modern art"], "MoMA - Opening hours", "10:30-17:30 daily",
     "11 W 53rd St, New York · Saturdays until 19:00", "moma.example.org/visit"),
    (["sfmoma hours", "sfmoma opening", "sfmoma"], "SFMOMA - Opening hours", "10:00-17:00, closed Wednesdays",
     "151 Third St, San Francisco · Thursdays until 21:00", "sfmoma.example.org/visit"),
    (["computer history museum hours", "computer history museum"], "Computer History Museum - Opening hours",
     "10:00-17:00, closed Mondays and Tuesdays", "1401 N Shoreline Blvd, Mountain View, CA 94043",
     "computerhistory.example.org/visit"),
    (["googleplex address", "googleplex"], "Googleplex", "1600 Amphitheatre Pkwy, Mountain View, CA 94043",
     "Corporate headquarters of Google.", "maps.example.com/googleplex"),
    (["stanford university address", "stanford address"], "Stanford University",
     "450 Jane Stanford Way, Stanford, CA 94305", "Private research university founded in 1885.",
     "maps.example.com/stanford"),
    (["sjc airport code", "san jose airport"], "San Jose Mineta International Airport", "SJC",
     "1701 Airport Blvd, San Jose, CA 95110 · 3 terminals", "sjc.example.com"),
    (["ua 837", "united 837", "flight ua837"], "United Airlines UA 837 · SFO to NRT", "Departs 11:05, on time",
     "Gate G92 · Terminal International G · Arrives 15:25 +1", "flights.example.com/UA837"),
    (["lh 455", "lufthansa 455", "flight lh455"], "Lufthansa LH 455 · SFO to FRA", "Departs 15:40, delayed 35 min",
     "Gate A11 · Terminal International A · Arrives 11:20 +1", "flights.example.com/LH455"),
    (["cupertino weather", "weather cupertino"], "Weather in Cupertino", "17°C, sunny",
     "High 19°C · Low 8°C · Wind 9 km/h · Humidity 48%", "weather.example.com/cupertino"),
    (["san francisco weather", "sf weather"], "Weather in San Francisco", "14°C, fog",
     "High 16°C · Low 10°C · Wind 18 km/h · Humidity 81%", "weather.example.com/san-francisco"),
    (["tokyo weather"], "Weather in Tokyo", "12°C, light rain", "High 14°C · Low 9°C · Wind 12 km/h · Humidity 77%",
     "weather.example.com/tokyo"),
    (["warriors game", "golden state warriors"], "Golden State Warriors vs. LA Lakers", "Nov 23, 2026 · 17:30",
     "Chase Center, San Francisco · Tickets from $89", "nba.example.com/warriors"),
    (["farmers market", "cupertino farmers market"], "Cupertino Farmers Market", "Fridays 9:00-13:00",
     "Vallco parking lot, 10123 N Wolfe Rd · Rain or shine", "cupertino.example.org/market"),
    (["thanksgiving 2026", "thanksgiving date"], "Thanksgiving Day 2026", "Thursday, Nov 26, 2026",
     "A federal holiday in the United States, the fourth Thursday of November.", "calendar.example.com/thanksgiving"),
    (["python latest version", "python version"], "Python 3.14", "Released Oct 7, 2025",
     "The latest feature release of the Python programming language.", "python.example.org/downloads"),
    (["speed of light"], "Speed of light", "299,792,458 m/s", "The speed of light in a vacuum, exactly, by definition.",
     "wiki.example.org/Speed_of_light"),
    (["boiling point of water", "water boiling point"], "Boiling point of water", "100 °C at sea level",
     "212 °F at 1 atmosphere of pressure.", "wiki.example.org/Water"),
]


def more_facts() -> list[dict[str, Any]]:
    """The extra default facts as dicts in the `apps.search.Fact` shape, in a fixed order."""
    return [{"keywords": list(k), "title": t, "fact": f, "snippet": s, "url": u} for k, t, f, s, u in _ROWS]
