"""Places and routes in Maps beyond the first four places and three routes: the South Bay and
San Francisco as a Cupertino resident travels them.

Maps matches a typed place by name or address, and a name inside another counts (four letters or
more), so no name here contains, or is contained in, another place's name or address; the first
places and routes stay first, so the built-in tasks find what they found before. Times are minutes
(drive, transit, walk; None where a mode makes no sense), fixed.
"""

from __future__ import annotations

from typing import Any

# (name, address)
_PLACES: list[tuple[str, str]] = [
    ("Googleplex", "1600 Amphitheatre Pkwy, Mountain View, CA 94043"),
    ("Computer History Museum", "1401 N Shoreline Blvd, Mountain View, CA 94043"),
    ("Santana Row", "377 Santana Row, San Jose, CA 95128"),
    ("Westfield Valley Fair", "2855 Stevens Creek Blvd, Santa Clara, CA 95050"),
    ("Levi's Stadium", "4900 Marie P DeBartolo Way, Santa Clara, CA 95054"),
    ("Diridon Station", "65 Cahill St, San Jose, CA 95110"),
    ("Rancho San Antonio Preserve", "22500 Cristo Rey Dr, Los Altos, CA 94024"),
    ("Los Gatos Creek Trail", "Forbes Mill, 75 Church St, Los Gatos, CA 95030"),
    ("Palo Alto Caltrain", "95 University Ave, Palo Alto, CA 94301"),
    ("De Anza College", "21250 Stevens Creek Blvd, Cupertino, CA 95014"),
    ("Cupertino Library", "10800 Torre Ave, Cupertino, CA 95014"),
    ("Main Street Cupertino", "19419 Stevens Creek Blvd, Cupertino, CA 95014"),
    ("Whole Foods Market Cupertino", "20955 Stevens Creek Blvd, Cupertino, CA 95014"),
    ("El Camino Hospital", "2500 Grant Rd, Mountain View, CA 94040"),
    ("Shoreline Amphitheatre", "1 Amphitheatre Pkwy, Mountain View, CA 94043"),
    ("Winchester Mystery House", "525 S Winchester Blvd, San Jose, CA 95128"),
    ("San Francisco Airport", "San Francisco International Airport, CA 94128"),
    ("Ferry Building", "1 Ferry Building, San Francisco, CA 94111"),
    ("Golden Gate Park", "501 Stanyan St, San Francisco, CA 94117"),
    ("Chase Center", "1 Warriors Way, San Francisco, CA 94158"),
    ("Embarcadero Center", "4 Embarcadero Center, San Francisco, CA 94111"),
    ("Oakland Museum", "1000 Oak St, Oakland, CA 94607"),
    ("Berkeley Campus", "110 Sproul Plaza, Berkeley, CA 94720"),
    ("Half Moon Bay Beach", "Half Moon Bay State Beach, Half Moon Bay, CA 94019"),
    ("Santa Cruz Boardwalk", "400 Beach St, Santa Cruz, CA 95060"),
    ("Monterey Bay Aquarium", "886 Cannery Row, Monterey, CA 93940"),
    ("Lake Tahoe South Shore", "Lakeview Commons, South Lake Tahoe, CA 96150"),
    ("Yosemite Valley", "Yosemite Valley Visitor Center, Yosemite National Park, CA 95389"),
]

# (origin, destination, drive, transit, walk, distance km, via)
_ROUTES: list[tuple[str, str, int | None, int | None, int | None, float, str]] = [
    ("Cupertino Apartments", "Googleplex", 16, 52, 190, 14.2, "CA-85 N"),
    ("Cupertino Apartments", "De Anza College", 5, 14, 28, 2.1, "Stevens Creek Blvd"),
    ("Cupertino Apartments", "Cupertino Library", 2, 8, 6, 0.5, "Torre Ave"),
    ("Cupertino Apartments", "Main Street Cupertino", 4, 12, 20, 1.6, "Stevens Creek Blvd"),
    ("Cupertino Apartments", "Whole Foods Market Cupertino", 5, 15, 26, 2.0, "Stevens Creek Blvd"),
    ("Cupertino Apartments", "Santana Row", 14, 38, 125, 10.4, "I-280 S"),
    ("Cupertino Apartments", "Westfield Valley Fair", 12, 31, 105, 8.7, "Stevens Creek Blvd"),
    ("Cupertino Apartments", "San Jose Airport", 18, 55, 215, 16.1, "I-280 S, CA-87 N"),
    ("Cupertino Apartments", "San Francisco Airport", 35, 95, None, 52.3, "I-280 N"),
    ("Cupertino Apartments", "Rancho San Antonio Preserve", 11, 45, 95, 7.8, "Foothill Expy"),
    ("Cupertino Apartments", "Diridon Station", 17, 42, 160, 13.5, "I-280 S"),
    ("Cupertino Apartments", "El Camino Hospital", 14, 40, 120, 10.2, "Grant Rd"),
    ("Apple Park", "Googleplex", 14, 48, 170, 12.6, "CA-85 N"),
    ("Apple Park", "Computer History Museum", 13, 46, 165, 12.1, "CA-85 N"),
    ("Apple Park", "Palo Alto Caltrain", 20, 41, 230, 17.4, "I-280 N, Page Mill Rd"),
    ("Apple Park", "Levi's Stadium", 16, 44, 175, 13.9, "Lawrence Expy"),
    ("Apple Park", "Main Street Cupertino", 6, 16, 30, 2.3, "Wolfe Rd"),
    ("Stanford University", "Palo Alto Caltrain", 5, 12, 22, 1.7, "Palm Dr"),
    ("Stanford University", "San Francisco Airport", 25, 58, None, 33.0, "US-101 N"),
    ("Palo Alto Caltrain", "Ferry Building", 55, 75, None, 53.1, "US-101 N"),
    ("Diridon Station", "Santana Row", 10, 24, 55, 4.6, "Stevens Creek Blvd"),
    ("Diridon Station", "San Jose Airport", 9, 18, 60, 5.1, "CA-87 N"),
    ("San Jose Airport", "Levi's Stadium", 10, 30, 95, 8.2, "US-101 N"),
    ("San Jose Airport", "Winchester Mystery House", 14, 37, 110, 9.4, "I-880 S"),
    ("Googleplex", "Shoreline Amphitheatre", 3, 12, 9, 0.8, "Amphitheatre Pkwy"),
    ("Googleplex", "Computer History Museum", 4, 14, 24, 1.9, "Shoreline Blvd"),
    ("San Francisco Airport", "Ferry Building", 22, 38, None, 22.5, "US-101 N"),
    ("Ferry Building", "Golden Gate Park", 20, 35, 75, 7.2, "Fell St"),
    ("Ferry Building", "Chase Center", 9, 18, 35, 2.8, "The Embarcadero"),
    ("Ferry Building", "Embarcadero Center", 2, 5, 4, 0.3, "The Embarcadero"),
    ("Ferry Building", "Oakland Museum", 18, 25, None, 15.4, "I-80 E"),
    ("Oakland Museum", "Berkeley Campus", 15, 28, 110, 9.5, "CA-24 W, Telegraph Ave"),
    ("Cupertino Apartments", "Half Moon Bay Beach", 50, None, None, 62.0, "CA-92 W"),
    ("Cupertino Apartments", "Santa Cruz Boardwalk", 40, 115, None, 48.7, "CA-17 S"),
    ("Cupertino Apartments", "Los Gatos Creek Trail", 15, 50, 140, 11.3, "CA-85 S"),
    ("Cupertino Apartments", "Monterey Bay Aquarium", 80, 210, None, 110.5, "US-101 S, CA-156 W"),
    ("Cupertino Apartments", "Lake Tahoe South Shore", 240, None, None, 330.0, "I-80 E, US-50 E"),
    ("Cupertino Apartments", "Yosemite Valley", 255, None, None, 290.0, "I-580 E, CA-120 E"),
]


def more_places() -> list[dict[str, Any]]:
    """The places after the first four, in the `apps.maps.Place` shape."""
    return [{"name": n, "address": a} for n, a in _PLACES]


def more_routes() -> list[dict[str, Any]]:
    """The routes after the first three, in the `apps.maps.MapRoute` shape."""
    return [{"origin": o, "destination": d, "drive": dr, "transit": tr, "walk": wk, "distance_km": km, "via": via}
            for o, d, dr, tr, wk, km, via in _ROUTES]
