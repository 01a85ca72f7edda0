"""A small sim scenario whose one sub-task has two paths (PSPA's "choose one path"): tell Mom by a
text or by a note. `text-or-note-a`'s reference texts her and `text-or-note-b`'s writes the note; each
path the task's reference does not take carries its own reference, so `scenarios verify` plays both."""

from __future__ import annotations

from pathlib import Path

SCENARIO = """\
id: altpack
title: Alternative paths
device: sim
setup: {clock: 2026-11-21T09:00:00}
tasks:
  - id: text-or-note-a
    apps: [calculator, messages, notes]
    instruction: {L0: "Work out 6*7 in the Calculator, then tell Mom the answer: text her, or leave it in a note titled Answer."}
    difficulty: 1
    golden_steps: 12
    milestones:
      - id: computed
        text: The Calculator shows 42
        check: {state: calculator.history, field: result, op: approx, value: 42}
      - id: told
        text: Mom is told 42
        depends_on: [computed]
        any_of:
          - id: by-message
            milestones:
              - {id: chat-open, text: A message to Mom is being written,
                 check: {all: [{app: messages}, {element: "id:recipient", text: Mom}, {element: "id:message"}]}}
              - {id: message-sent, text: Mom has been sent 42,
                 check: {state: messages.threads, where: {number: "+1 415 555 0199"}, field: messages.text,
                         op: contains, value: "42"}}
          - id: by-note
            milestones:
              - {id: note-titled, text: A note titled Answer is being written,
                 check: {all: [{app: notes}, {element: "id:title", text: Answer}]}}
              - {id: note-saved, text: A note titled Answer holds 42,
                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: "42"}}
            reference:
              - &compute [{open: calculator}, {type: "6*7"}, {tap: "="}]
              - [{open: notes}, {tap: New note}, {type: Answer}, enter, {type: "42"}, {tap: {id: save}}, {open: calculator},
                 finish]
      - id: done
        text: The Calculator is open again, after Mom was told
        depends_on: [told]
        check: {app: calculator}
    reference:
      - *compute
      - [{open: messages}, {tap: Start chat}, {type: Mom}, {tap: {id: suggestion}}, {tap: {id: message}}, {type: "42"},
         {tap: {id: send}}]
      - {open: calculator}
      - finish
  - id: text-or-note-b
    apps: [calculator, messages, notes]
    instruction: {L0: "Work out 6*7 in the Calculator, then tell Mom the answer: leave it in a note titled Answer, or text her."}
    difficulty: 1
    golden_steps: 11
    milestones:
      - id: computed
        text: The Calculator shows 42
        check: {state: calculator.history, field: result, op: approx, value: 42}
      - id: told
        text: Mom is told 42
        any_of:
          - id: by-message
            milestones:
              - {id: chat-open, text: A message to Mom is being written,
                 check: {all: [{app: messages}, {element: "id:recipient", text: Mom}, {element: "id:message"}]}}
              - {id: message-sent, text: Mom has been sent 42,
                 check: {state: messages.threads, where: {number: "+1 415 555 0199"}, field: messages.text,
                         op: contains, value: "42"}}
            reference:
              - [{open: calculator}, {type: "6*7"}, {tap: "="}]
              - [{open: messages}, {tap: Start chat}, {type: Mom}, {tap: {id: suggestion}}, {tap: {id: message}},
                 {type: "42"}, {tap: {id: send}}, {open: calculator}, finish]
          - id: by-note
            milestones:
              - {id: note-titled, text: A note titled Answer is being written,
                 check: {all: [{app: notes}, {element: "id:title", text: Answer}]}}
              - {id: note-saved, text: A note titled Answer holds 42,
                 check: {state: notes.notes, where: {title: Answer}, field: body, op: contains, value: "42"}}
      - id: done
        text: The Calculator is open again, after Mom was told
        check: {app: calculator}
    reference: [{open: calculator}, {type: "6*7"}, {tap: "="}, {open: notes}, {tap: New note}, {type: Answer}, enter,
                {type: "42"}, {tap: {id: save}}, {open: calculator}, finish]
"""


def write(tmp: Path, text: str = SCENARIO) -> Path:
    p = tmp / "altpack.yaml"
    p.write_text(text, encoding="utf-8")
    return p
