"""Reading the dates and times people type: `9:30`, `9am`, `21:05`, `2026-11-21`, `tomorrow`."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_TIME = re.compile(r"^\s*(\d{1,2})(?:[:.h](\d{2}))?\s*([ap]\.?m\.?)?\s*$", re.I)


def parse_time(s: str) -> time | None:
    m = _TIME.match(s)
    if not m:
        return None
    h, mi = int(m[1]), int(m[2] or 0)
    ampm = (m[3] or "").lower().replace(".", "")
    if ampm:
        if not 1 <= h <= 12:
            return None
        h = h % 12 + (12 if ampm == "pm" else 0)
    if not (0 <= h <= 23 and 0 <= mi <= 59):
        return None
    return time(h, mi)


def parse_date(s: str, today: date) -> date | None:
    t = s.strip().lower()
    if t == "today":
        return today
    if t == "tomorrow":
        return today + timedelta(days=1)
    if t == "yesterday":
        return today - timedelta(days=1)
    for fmt in ("%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%d.%m.%Y", "%b %d %Y", "%B %d %Y", "%d %b %Y", "%d %B %Y"):
        try:
            return datetime.strptime(s.strip().replace(",", ""), fmt).date()
        except ValueError:
            pass
    for fmt in ("%b %d", "%B %d", "%d %b", "%d %B"):
        try:
            d = datetime.strptime(s.strip().replace(",", ""), fmt).date()
            return d.replace(year=today.year)
        except ValueError:
            pass
    return None


def hhmm(t: time | datetime) -> str:
    return t.strftime("%H:%M")
