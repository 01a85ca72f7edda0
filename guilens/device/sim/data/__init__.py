"""The sim's default data, written as fixed tables: the shop's catalogue, people and their
message histories, places and routes, and web-search facts.

Each module expands its tables by a fixed rule (never the wall clock, never an unseeded random
source), so every machine builds the same phone. The apps read it through their own modules
(`apps/shop_data.py`, `apps/contacts.py`, ...), which keep the rows the built-in packs rely on
first and unchanged.
"""
