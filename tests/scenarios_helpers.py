"""Valid scenario texts and small UI trees the scenario tests start from."""

from __future__ import annotations

from typing import Any

import yaml

from guilens.device.uitree import UINode, parse_ui_xml

TASKS_YAML = """\
id: sample
title: Sample pack
description: Two mirror tasks on any device, with every kind of check.
device: any
user:
  profile: Sam, a runner who keeps a tidy notes app.
tasks:
  - id: shoes
    title: Note shoe price
    apps: [shop, notes]
    instruction:
      L0: "Find the price of {brand} running shoes and note it in a note titled Shoes."
      L1: "Find the price of running shoes of my usual brand and note it in a note titled Shoes."
      L2: "I want new running shoes; keep the price somewhere for me."
    memory: cross-app
    output: explicit
    difficulty: 1
    golden_steps: 5
    categories: ["Shopping: Product Search", "Productivity: Note Taking"]
    user:
      slots:
        brand: {value: ASICS, keywords: [make]}
    milestones:
      - id: found
        text: "The ASICS running shoes are on screen"
        check: {screen_text: "{brand}"}
        key: {text: ASICS, bbox: [0.1, 0.2, 0.9, 0.3], state: [selected]}
      - unordered:
          - id: in_notes
            text: "The notes app is open"
            check: {app: notes}
          - id: titled
            text: "The title field says Shoes"
            check: {element: "id:title", text: Shoes}
            kind: flexible
      - id: noted
        text: "A note titled Shoes holds the price"
        check: {state: notes.notes, where: {title: Shoes}, field: body, op: approx, value: 89.99, tolerance: 0.01}
        depends_on: [titled]
    reference:
      - open: shop
      - ask: {question: "Which brand do you like?", slot: brand}
      - tap: "{brand}"
      - remember: {app: shop, content: "{brand} 89.99"}
      - open: notes
      - tap: {id: title}
      - type: "Shoes"
  - id: bags
    title: Note bag price
    apps: [shop, notes]
    mirror_of: shoes
    instruction:
      L0: "Find the price of the ALDO handbag and answer with it."
    memory: cross-app
    output: implicit
    difficulty: 1
    golden_steps: 3
    answer: {numbers: [59.5], contains_any: [ALDO, handbag]}
    milestones:
      - id: found
        text: "The ALDO handbag is on screen"
        check: {all: [{screen_text: ALDO}, {not: {screen_text: "Sold out"}}]}
    reference:
      - open: shop
      - answer: "ALDO handbag: $59.50"
      - finish
"""

SEQUENCE_YAML = """\
id: day
title: A day
kind: sequence
device: any
start: 2026-01-19
preferences:
  - {id: budget, text: "Keep lunch under $15.", stated_in: plan}
tasks:
  - id: plan
    clock: "08:00"
    apps: [notes]
    instruction: {L0: "Note that lunch stays under $15."}
    difficulty: 1
    golden_steps: 1
    milestones:
      - {id: noted, text: "Budget noted", check: {state: notes.notes, op: exists}}
  - id: order
    clock: "12:30"
    apps: [shop]
    depends_on: [plan]
    constrained_by: [budget]
    instruction: {L0: "Order a lunch box."}
    difficulty: 1
    golden_steps: 2
    outputs:
      total: {state: shop.orders, field: total, expected: "12.50"}
    milestones:
      - {id: ordered, text: "Lunch ordered", check: {state: shop.orders, field: total, op: lte, value: 15}}
  - id: expense
    clock: "2026-01-19 13:00"
    apps: [expense]
    depends_on: [order]
    instruction: {L0: "Record an expense of ${total} for lunch.", L1: "Log what I just spent."}
    difficulty: 1
    golden_steps: 2
    milestones:
      - {id: logged, text: "Expense recorded", check: {state: expense.entries, field: amount, op: equals, value: "{total}"}}
"""


def data(text: str = TASKS_YAML) -> dict[str, Any]:
    return yaml.safe_load(text)


def dump(d: Any) -> str:
    return yaml.safe_dump(d, sort_keys=False, allow_unicode=True)


SCREEN_XML = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.guilens.notes:id/tab_all" class="android.widget.LinearLayout" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="true" bounds="[0,100][540,200]">
      <node index="0" text="All notes" resource-id="" class="android.widget.TextView" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[20,120][520,180]" />
    </node>
    <node index="1" text="Favourites" resource-id="com.guilens.notes:id/tab_fav" class="android.widget.TextView" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[540,100][1080,200]" />
    <node index="2" text="Shoes" resource-id="com.guilens.notes:id/title" class="android.widget.EditText" package="com.guilens.notes" content-desc="Title" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,300][1080,400]" />
    <node index="3" text="Pin" resource-id="com.guilens.notes:id/pin" class="android.widget.Switch" package="com.guilens.notes" content-desc="" checkable="true" checked="true" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,400][1080,500]" />
    <node index="4" text="Total: $1,234.50 (3 items)" resource-id="" class="android.widget.TextView" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,500][1080,600]" />
    <node index="5" text="Hidden" resource-id="" class="android.widget.TextView" package="com.guilens.notes" content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,0][0,0]" />
  </node>
</hierarchy>
"""


def screen() -> UINode:
    return parse_ui_xml(SCREEN_XML)


STATE = {
    "foreground": "com.guilens.notes",
    "screen": "notes/edit",
    "apps": {
        "notes": {
            "notes": [
                {"id": 1, "title": "Groceries", "body": "milk\neggs\nbread", "pinned": False, "tags": ["home"]},
                {"id": 2, "title": "Shoes", "body": "ASICS Gel: $89.99\nNike: $120", "pinned": True, "tags": []},
            ]
        },
        "expense": {"entries": [{"name": "Lunch", "amount": 12.5, "category": "Food"}]},
        "settings": {"wifi": True, "brightness": 70},
    },
}
