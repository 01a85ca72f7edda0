"""People on the sim's phone beyond the first four contacts, and the text histories the phone holds.

Every name here sorts after "Carla Diaz", so the first contacts (Alice Chen, Bob Martin, Carla
Diaz) stay on the first screen of the Contacts list, and none contains another contact's name,
so typing a name in Messages' "To" field suggests that contact first. Numbers use area codes
the first four do not (650, 408, 510). Histories are dated before the sim's default day (Nov 21,
2026, 09:00), oldest first; none says anything a built-in task's check looks for.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

# (name, phone, email, company, address)
_CONTACTS: list[tuple[str, str, str, str, str]] = [
    ("Chloe Bennett", "+1 650 555 0110", "chloe.bennett@example.com", "Stanford Health", ""),
    ("Daniel Okafor", "+1 650 555 0111", "daniel.okafor@example.com", "Northwind", ""),
    ("David Kim", "+1 408 555 0212", "david.kim@example.com", "", "20 N Santa Cruz Ave, Los Gatos, CA 95030"),
    ("Elena Rossi", "+1 650 555 0113", "elena.rossi@example.com", "Contoso", ""),
    ("Emma Schultz", "+1 408 555 0214", "emma.s@example.com", "", ""),
    ("Ethan Brooks", "+1 510 555 0315", "ethan.brooks@example.com", "Fabrikam", ""),
    ("Fatima Haddad", "+1 650 555 0116", "fatima.haddad@example.com", "", ""),
    ("Gabriel Silva", "+1 408 555 0217", "gabriel.silva@example.com", "Tailspin Toys", ""),
    ("Grace Liu", "+1 650 555 0118", "grace.liu@example.com", "", "455 Hamilton Ave, Palo Alto, CA 94301"),
    ("Hannah Weber", "+1 510 555 0319", "hannah.weber@example.com", "Litware", ""),
    ("Hiro Tanaka", "+1 408 555 0220", "hiro.tanaka@example.com", "", ""),
    ("Isabel Moreno", "+1 650 555 0121", "isabel.moreno@example.com", "Adventure Works", ""),
    ("Jake Thompson", "+1 408 555 0222", "jake.t@example.com", "", ""),
    ("James Wilson", "+1 510 555 0323", "james.wilson@example.com", "Northwind", ""),
    ("Julia Novak", "+1 650 555 0124", "julia.novak@example.com", "", ""),
    ("Kenji Watanabe", "+1 408 555 0225", "kenji.w@example.com", "Fabrikam", ""),
    ("Laura Fischer", "+1 650 555 0126", "laura.fischer@example.com", "", ""),
    ("Liam O'Connor", "+1 510 555 0327", "liam.oconnor@example.com", "", "88 Grand Ave, Oakland, CA 94612"),
    ("Maya Singh", "+1 408 555 0228", "maya.singh@example.com", "Contoso", ""),
    ("Mia Johansson", "+1 650 555 0129", "mia.j@example.com", "", ""),
    ("Nina Petrova", "+1 510 555 0330", "nina.petrova@example.com", "Litware", ""),
    ("Noah Garcia", "+1 408 555 0231", "noah.garcia@example.com", "", ""),
    ("Olivia Brown", "+1 650 555 0132", "olivia.brown@example.com", "Tailspin Toys", ""),
    ("Omar Farouk", "+1 510 555 0333", "omar.farouk@example.com", "", ""),
    ("Pablo Ruiz", "+1 408 555 0234", "pablo.ruiz@example.com", "", ""),
    ("Priya Raman", "+1 650 555 0135", "priya.raman@example.com", "Northwind", ""),
    ("Quinn Taylor", "+1 510 555 0336", "quinn.taylor@example.com", "", ""),
    ("Rachel Adler", "+1 408 555 0237", "rachel.adler@example.com", "Adventure Works", ""),
    ("Ravi Kumar", "+1 650 555 0138", "ravi.kumar@example.com", "", ""),
    ("Sofia Costa", "+1 510 555 0339", "sofia.costa@example.com", "", ""),
    ("Tom Becker", "+1 408 555 0240", "tom.becker@example.com", "Fabrikam", ""),
    ("Uma Shah", "+1 650 555 0141", "uma.shah@example.com", "", ""),
    ("Victor Huang", "+1 510 555 0342", "victor.huang@example.com", "Contoso", ""),
    ("Wendy Clark", "+1 408 555 0243", "wendy.clark@example.com", "", ""),
    ("Yuki Sato", "+1 650 555 0144", "yuki.sato@example.com", "", ""),
    ("Zoe Mitchell", "+1 510 555 0345", "zoe.mitchell@example.com", "Litware", ""),
]

# number -> [(when "MM-DD HH:MM" in 2026, outgoing, text)]
_HISTORIES: dict[str, list[tuple[str, bool, str]]] = {
    "+1 415 555 0199": [  # Mom
        ("11-14 18:02", False, "Did you get home safe?"),
        ("11-14 18:10", True, "Yes, just got in. Thanks for lunch!"),
        ("11-18 20:31", False, "Your aunt says hello. Call her this week?"),
        ("11-18 20:45", True, "Will do, maybe on Sunday."),
    ],
    "+1 650 555 0110": [  # Chloe
        ("11-02 09:15", False, "Are we still on for the hike next weekend?"),
        ("11-02 09:20", True, "Yes! Rancho San Antonio, early start."),
        ("11-08 07:05", False, "Running ten minutes late, sorry"),
        ("11-08 07:06", True, "No rush, I'm getting coffee"),
    ],
    "+1 650 555 0111": [  # Daniel
        ("11-17 14:22", False, "Can you review my slides before Friday?"),
        ("11-17 14:40", True, "Sure, send them over tonight."),
        ("11-19 09:03", False, "Sent! The pricing section is the rough part."),
    ],
    "+1 408 555 0212": [  # David
        ("10-28 19:40", False, "Game night at mine on Saturday, bring snacks"),
        ("10-28 19:52", True, "I'm in. Chips and salsa?"),
        ("10-28 19:53", False, "Perfect"),
        ("11-20 21:12", False, "Lost my charger at your place I think, the white one"),
    ],
    "+1 650 555 0113": [  # Elena
        ("11-10 12:30", True, "Lunch at the Italian place on Thursday?"),
        ("11-10 12:41", False, "Love that. 12:30 works for me."),
        ("11-13 13:55", False, "That tiramisu was dangerous. Same time next month?"),
    ],
    "+1 408 555 0214": [  # Emma
        ("11-05 17:00", False, "Emma here, the landlord says the plumber comes Tuesday morning"),
        ("11-05 17:04", True, "Thanks, I'll leave the key under the mat"),
    ],
    "+1 510 555 0315": [  # Ethan
        ("11-12 08:45", False, "Carpool tomorrow? I can drive"),
        ("11-12 08:50", True, "Yes please, pick me up at 8:15"),
        ("11-13 08:14", False, "Outside"),
    ],
    "+1 408 555 0217": [  # Gabriel
        ("11-16 16:20", False, "Did you see the match last night?"),
        ("11-16 16:35", True, "Only the second half. What a finish!"),
        ("11-16 16:36", False, "Unreal. Watch party for the final?"),
        ("11-16 16:40", True, "Count me in."),
    ],
    "+1 650 555 0118": [  # Grace
        ("11-19 10:10", False, "Book club is at my place this month"),
        ("11-19 10:12", False, "We're reading Klara and the Sun"),
        ("11-19 11:30", True, "Great pick, I'll start it this weekend"),
    ],
    "+1 510 555 0319": [  # Hannah
        ("11-03 15:00", True, "Happy birthday Hannah! Hope it's a great one"),
        ("11-03 15:22", False, "Thank you!! Drinks Friday if you're free"),
    ],
    "+1 408 555 0220": [  # Hiro
        ("11-11 18:18", False, "Sushi recommendation in Japantown?"),
        ("11-11 18:25", True, "Try the small place on Jackson St, ask for the omakase"),
        ("11-15 22:03", False, "Went there. Incredible, thank you"),
    ],
    "+1 650 555 0121": [  # Isabel
        ("11-18 09:30", False, "Quick reminder: team photo on Monday, wear something blue"),
        ("11-18 09:41", True, "Noted!"),
    ],
    "+1 408 555 0222": [  # Jake
        ("10-30 20:00", False, "Can I borrow your ladder this weekend?"),
        ("10-30 20:15", True, "Sure, it's in the garage. Just text before you come."),
        ("11-01 10:02", False, "On my way"),
        ("11-01 13:30", False, "Returned it, thanks a lot"),
    ],
    "+1 650 555 0124": [  # Julia
        ("11-20 19:05", False, "Are you watching the new season yet?"),
        ("11-20 19:20", True, "Two episodes in. No spoilers!"),
    ],
    "+1 650 555 0126": [  # Laura
        ("11-06 11:11", False, "Yoga at 7 tomorrow?"),
        ("11-06 11:40", True, "Can't tomorrow, Thursday instead?"),
        ("11-06 11:42", False, "Thursday it is"),
    ],
    "+1 408 555 0228": [  # Maya
        ("11-14 13:13", False, "The client moved the call to Tuesday afternoon"),
        ("11-14 13:20", True, "OK, I'll update the invite"),
        ("11-17 17:45", False, "Great work on the demo today"),
    ],
    "+1 510 555 0330": [  # Nina
        ("11-09 10:00", False, "Do you still have the recipe for that lentil soup?"),
        ("11-09 10:30", True, "Yes, I'll send you a photo of the page tonight"),
    ],
    "+1 650 555 0135": [  # Priya
        ("11-19 16:00", False, "Welcome to the team! Let me know if you need anything"),
        ("11-19 16:10", True, "Thank you, Priya! Coffee next week?"),
        ("11-19 16:11", False, "Definitely"),
    ],
    "+1 408 555 0237": [  # Rachel
        ("11-04 08:30", False, "Flight lands at 6pm, can you grab me?"),
        ("11-04 08:32", True, "Of course, text me when you land"),
        ("11-04 18:07", False, "Landed! At baggage claim"),
    ],
    "+1 510 555 0342": [  # Victor
        ("11-13 21:00", False, "Pickup basketball Sunday morning?"),
        ("11-13 21:05", True, "Not this week, my knee needs a rest"),
    ],
    "+1 650 555 0144": [  # Yuki
        ("11-20 07:50", False, "Good morning! The bakery has the chestnut bread again"),
        ("11-20 08:15", True, "Save me a loaf please!"),
    ],
}


def more_contacts() -> list[dict[str, Any]]:
    """The contacts after the first four, in the `apps.contacts.Contact` shape (ids are numbered by the state)."""
    return [{"name": n, "phone": p, "email": e, "company": c, "address": a} for n, p, e, c, a in _CONTACTS]


def default_threads() -> list[dict[str, Any]]:
    """The phone's conversations, in the `apps.messages.Thread` shape: dated texts, oldest first, all read."""
    names = {p: n for n, p, *_ in _CONTACTS}
    out = []
    for number, rows in _HISTORIES.items():
        msgs = [{"text": text, "outgoing": outgoing, "time": datetime.strptime(f"2026-{when}", "%Y-%m-%d %H:%M")}
                for when, outgoing, text in rows]
        out.append({"number": number, "name": names.get(number, ""), "messages": msgs, "unread": False})
    return out
