"""The Calculator task (12+30 on the sim) that the claude and the openai agents' tests both run."""

INSTRUCTION = "Use Calculator to add 12 and 30, then tell me the result."

SCENARIO = """
id: calc
title: Calculator check
device: sim
setup:
  clock: 2026-11-21T09:00:00
tasks:
  - id: add
    apps: [calculator]
    difficulty: 1
    golden_steps: 8
    instruction:
      L0: Use Calculator to add 12 and 30, then tell me the result.
    milestones:
      - id: added
        text: "The Calculator worked out 12+30 = 42"
        check: {state: calculator.history, field: result, op: equals, value: "42"}
    answer: {numbers: [42]}
"""
