"""One UI-tree type and one parser for the XML of `uiautomator dump`.

The simulated phone emits this format and `AdbDevice` reads the real one, so
checks, set-of-marks prompts and the TUI's element picker see the same thing
whichever device is attached.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


class UITreeError(ValueError):
    """The UI dump is not the XML `uiautomator dump` writes."""


@dataclass(eq=False)
class UINode:
    """A node of the UI tree. `bounds` is (x1, y1, x2, y2) in device pixels, right/bottom exclusive."""

    text: str = ""
    resource_id: str = ""
    cls: str = ""
    package: str = ""
    content_desc: str = ""
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)
    clickable: bool = False
    long_clickable: bool = False
    scrollable: bool = False
    focusable: bool = False
    focused: bool = False
    selected: bool = False
    checked: bool = False
    checkable: bool = False
    enabled: bool = True
    editable: bool = False
    children: list[UINode] = field(default_factory=list)
    parent: UINode | None = field(default=None, repr=False)

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def area(self) -> int:
        x1, y1, x2, y2 = self.bounds
        return max(0, x2 - x1) * max(0, y2 - y1)

    @property
    def short_id(self) -> str:
        """`title` for `com.guilens.notes:id/title`."""
        return self.resource_id.rpartition("/")[2]

    @property
    def actionable(self) -> bool:
        return self.enabled and self.area > 0 and (
            self.clickable or self.long_clickable or self.scrollable or self.editable or self.checkable
        )

    def iter(self) -> Iterator[UINode]:
        """This node and every descendant, depth first, in document order.

        With a stack, not nested generators: each node of a recursive walk passes up through every
        generator above it, and the checks and selectors walk every tree several times a step."""
        stack = [self]
        pop, push = stack.pop, stack.extend
        while stack:
            node = pop()
            yield node
            if node.children:
                push(reversed(node.children))

    def label(self) -> str:
        """What a person would call this node: its text, its description, or its children's text."""
        if self.text:
            return self.text
        if self.content_desc:
            return self.content_desc
        texts = [n.text or n.content_desc for n in self.iter() if n is not self and (n.text or n.content_desc)]
        if texts:
            return " ".join(texts)[:80]
        return self.short_id

    def all_text(self) -> str:
        return " ".join(t for n in self.iter() for t in (n.text, n.content_desc) if t)


def _flag(attrs: dict[str, str], name: str) -> bool:
    return attrs.get(name, "false") == "true"


def parse_ui_xml(xml: str | bytes) -> UINode:
    """Parse a `uiautomator dump` document; the root is the `<hierarchy>` (as a node with no attributes)."""
    if isinstance(xml, bytes):
        xml = xml.decode("utf-8", "replace")
    start = xml.find("<?xml")
    if start < 0:
        start = xml.find("<hierarchy")
    if start < 0:
        raise UITreeError("no <hierarchy> element in the UI dump")
    end = xml.rfind("</hierarchy>")
    body = xml[start : end + len("</hierarchy>")] if end >= 0 else xml[start:]
    try:
        root_el = ET.fromstring(body)
    except ET.ParseError as err:
        raise UITreeError(f"the UI dump is not well-formed XML: {err}") from None
    if root_el.tag != "hierarchy":
        raise UITreeError(f"the UI dump's root is <{root_el.tag}>, not <hierarchy>")

    def build(el: ET.Element, parent: UINode | None) -> UINode:
        a = el.attrib
        m = _BOUNDS.fullmatch(a.get("bounds", "").strip())
        bounds = (int(m[1]), int(m[2]), int(m[3]), int(m[4])) if m else (0, 0, 0, 0)
        cls = a.get("class", "")
        node = UINode(
            text=a.get("text", ""),
            resource_id=a.get("resource-id", ""),
            cls=cls,
            package=a.get("package", ""),
            content_desc=a.get("content-desc", ""),
            bounds=bounds,
            clickable=_flag(a, "clickable"),
            long_clickable=_flag(a, "long-clickable"),
            scrollable=_flag(a, "scrollable"),
            focusable=_flag(a, "focusable"),
            focused=_flag(a, "focused"),
            selected=_flag(a, "selected"),
            checked=_flag(a, "checked"),
            checkable=_flag(a, "checkable"),
            enabled=a.get("enabled", "true") == "true",
            editable=cls.endswith("EditText"),
            parent=parent,
        )
        node.children = [build(c, node) for c in el if c.tag == "node"]
        return node

    return build(root_el, None)


def to_ui_xml(root: UINode) -> str:
    """Write a tree back in `uiautomator dump` form (the sim's own dumps round-trip through this).

    Once per new sim screen, so it is written for speed: one f-string per node with the attributes in
    `uiautomator`'s order, only the five free-text values quoted (0.32 ms a tree before, about 0.1 now)."""
    out: list[str] = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
    append, q = out.append, _quote

    def emit(node: UINode, index: int, pad: str) -> None:
        b = node.bounds
        head = (f'{pad}<node index="{index}" text={q(node.text)} resource-id={q(node.resource_id)} '
                f'class={q(node.cls)} package={q(node.package)} content-desc={q(node.content_desc)} '
                f'checkable="{"true" if node.checkable else "false"}" '
                f'checked="{"true" if node.checked else "false"}" '
                f'clickable="{"true" if node.clickable else "false"}" '
                f'enabled="{"true" if node.enabled else "false"}" '
                f'focusable="{"true" if node.focusable else "false"}" '
                f'focused="{"true" if node.focused else "false"}" '
                f'scrollable="{"true" if node.scrollable else "false"}" '
                f'long-clickable="{"true" if node.long_clickable else "false"}" password="false" '
                f'selected="{"true" if node.selected else "false"}" bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]"')
        if node.children:
            append(head + ">")
            inner = pad + "  "
            for i, c in enumerate(node.children):
                emit(c, i, inner)
            append(f"{pad}</node>")
        else:
            append(head + " />")

    for i, child in enumerate(root.children):
        emit(child, i, "  ")
    append("</hierarchy>")
    return "\n".join(out)


_NEEDS_ESCAPE = frozenset('&<>"\n\r\t')


def _quote(v: str) -> str:
    """`quoteattr`, with a fast path for the plain values that make up most of a dump.

    Imported here: `xml.sax.saxutils` brings `urllib.request`, `http.client` and `ssl` with it, 6-9 ms of
    every start that reads a UI tree (the sim's checks, a replay), for the few values that need escaping."""
    if _NEEDS_ESCAPE.isdisjoint(v):
        return f'"{v}"'
    from xml.sax.saxutils import quoteattr

    return quoteattr(v)


def actionable_elements(root: UINode) -> list[UINode]:
    """The numbered list agents see (set-of-marks) and the TUI's element picker walks.

    Document order, one entry per actionable node; numbers are list positions, so
    they are only stable for one observation.
    """
    return [n for n in root.iter() if n.actionable]


def _norm(s: str) -> str:
    return " ".join(s.split()).casefold()


def find_nodes(root: UINode, selector: str) -> list[UINode]:
    """Nodes matching a selector, best matches first.

    A selector is a text, a content-desc or a resource-id (full, or the part after
    `:id/`); `id:title`, `text:Save` and `desc:Back` force one kind. Exact matches
    come before case-insensitive ones, which come before substring matches.
    """
    kind, _, value = selector.partition(":")
    if kind in ("id", "text", "desc") and value and "/" not in kind:
        kinds = [kind]
    else:
        kinds, value = ["text", "desc", "id"], selector
    want = _norm(value)

    def fields(n: UINode) -> list[str]:
        out: list[str] = []
        if "text" in kinds:
            out.append(n.text)
        if "desc" in kinds:
            out.append(n.content_desc)
        if "id" in kinds:
            out += [n.resource_id, n.short_id]
        return [f for f in out if f]

    nodes = list(root.iter())
    for test in (
        lambda f: f == value,
        lambda f: _norm(f) == want,
        lambda f: want in _norm(f),
    ):
        hits = [n for n in nodes if any(test(f) for f in fields(n))]
        if hits:
            return hits
    return []


def clickable_ancestor(node: UINode) -> UINode:
    """The node a tap on `node` lands on: itself if actionable, else its nearest actionable ancestor."""
    # A scroll container is actionable (it swipes) but is not what a tap on a label inside it
    # means: its centre may be another row's button. Only tap targets count here.
    cur: UINode | None = node
    while cur is not None:
        if cur.enabled and cur.area > 0 and (cur.clickable or cur.long_clickable or cur.editable or cur.checkable):
            return cur
        cur = cur.parent
    return node


def visible_texts(root: UINode) -> list[str]:
    return [t for n in root.iter() for t in (n.text, n.content_desc) if t]
