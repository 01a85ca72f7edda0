"""The judge's prompts, one versioned Markdown file per model role.

Prompts live in files, not in code, so a person can read what the judge was
told next to the paper it comes from, and so a change to a prompt is visible
in review. Each file has a front matter (`name`, `version`, `source`) and two
sections, `## system` and `## user`; the user section is a `string.Template`
(`${name}` placeholders), which leaves the JSON examples' braces alone.

A prompt's identity for caching is its name, version and a hash of its text:
an edit that forgets to bump the version still invalidates cached verdicts.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_DIR = Path(__file__).parent


class PromptError(ValueError):
    """A prompt file that does not follow the format; the message names the file."""


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    source: str
    system_template: str
    user_template: str
    sha: str

    @property
    def ref(self) -> str:
        """`triage@1`: what a verdict records."""
        return f"{self.name}@{self.version}"

    @property
    def cache_id(self) -> str:
        return f"{self.ref}:{self.sha[:12]}"

    def system(self, **values: object) -> str:
        return _fill(self, self.system_template, values)

    def user(self, **values: object) -> str:
        return _fill(self, self.user_template, values)


def _fill(prompt: Prompt, template: str, values: dict[str, object]) -> str:
    try:
        return string.Template(template).substitute({k: str(v) for k, v in values.items()})
    except KeyError as err:
        raise PromptError(f"prompt {prompt.ref}: no value for placeholder ${{{err.args[0]}}}") from None


def parse_prompt(text: str, origin: str) -> Prompt:
    if not text.startswith("---\n"):
        raise PromptError(f"{origin}: a prompt file starts with a '---' front matter")
    head, sep, body = text[4:].partition("\n---\n")
    if not sep:
        raise PromptError(f"{origin}: the front matter is not closed with '---'")
    meta: dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon:
            meta[key.strip()] = value.strip()
    for key in ("name", "version"):
        if key not in meta:
            raise PromptError(f"{origin}: the front matter needs '{key}'")
    try:
        version = int(meta["version"])
    except ValueError:
        raise PromptError(f"{origin}: version {meta['version']!r} is not a whole number") from None
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        if line.startswith("## ") and line[3:].strip() in ("system", "user"):
            current = sections.setdefault(line[3:].strip(), [])
            continue
        if current is not None:
            current.append(line)
    for key in ("system", "user"):
        if key not in sections:
            raise PromptError(f"{origin}: no '## {key}' section")
    return Prompt(
        name=meta["name"],
        version=version,
        source=meta.get("source", ""),
        system_template="\n".join(sections["system"]).strip(),
        user_template="\n".join(sections["user"]).strip(),
        sha=hashlib.sha256(text.encode()).hexdigest(),
    )


@cache
def load_prompt(name: str) -> Prompt:
    path = _DIR / f"{name}.md"
    if not path.is_file():
        raise PromptError(f"no prompt file {path}")
    prompt = parse_prompt(path.read_text(encoding="utf-8"), str(path))
    if prompt.name != name:
        raise PromptError(f"{path}: front matter name {prompt.name!r} does not match the file name")
    return prompt


PROMPT_NAMES = ("triage", "describe", "semantic", "visual", "irr", "milestone", "failure_mode")
