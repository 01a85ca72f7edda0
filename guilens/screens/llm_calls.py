"""What the model saw and said at one step: its recorded calls (`Step.llm_calls`, the user's on `ask`).

Debugging an agent live means reading its prompt and its raw reply, so this
view shows each call as it went over the wire: the parameters, every message
with its text exactly as the server received it (images as the screen they
reference, their size and bytes), the tools' schemas, the raw reply body, and
the retries, repair flag, tokens, cost and time. The run screen opens it on
the last recorded step (live: steps arrive with their calls through the
observer), the replay screen on the step in view.

Texts are assembled as literal `Content` pieces, never parsed as markup: a
prompt full of brackets must read as written.
"""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from guilens.describe import step_number
from guilens.episode_model import LLMCall, Step


def _image(ref: dict[str, Any]) -> str:
    size = f"{ref.get('width')}x{ref.get('height')}" if ref.get("width") else "size unknown"
    name = ref.get("ref") or f"unnamed image {ref.get('sha256', '')}"
    return f"[image {name}, {size}, {int(ref.get('bytes') or 0):,} bytes, {ref.get('media_type') or '?'}]"


def _is_ref(v: Any) -> bool:
    return isinstance(v, dict) and "sha256" in v and "bytes" in v


def _block(b: Any) -> list[str]:
    """One content block or part (Anthropic or OpenAI shape) as lines."""
    if isinstance(b, str):
        return [b]
    if not isinstance(b, dict):
        return [json.dumps(b, ensure_ascii=False)]
    kind = b.get("type")
    if kind == "text":
        return [str(b.get("text", ""))]
    if kind == "image" and _is_ref((b.get("source") or {}).get("data")):
        return [_image(b["source"]["data"])]
    if kind == "image_url" and _is_ref((b.get("image_url") or {}).get("url")):
        return [_image(b["image_url"]["url"])]
    if kind == "tool_use":
        return [f"→ tool call {b.get('name')} ({b.get('id')}): {json.dumps(b.get('input'), ensure_ascii=False)}"]
    if kind == "tool_result":
        inner = b.get("content")
        lines = [f"← tool result for {b.get('tool_use_id')}" + (" (error)" if b.get("is_error") else "") + ":"]
        for c in inner if isinstance(inner, list) else [inner]:
            lines += _block(c)
        return lines
    if kind == "thinking":
        return ["(thinking) " + str(b.get("thinking", ""))]
    return [json.dumps(b, ensure_ascii=False)]


def _message_lines(m: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    content = m.get("content")
    for b in content if isinstance(content, list) else ([content] if content is not None else []):
        lines += _block(b)
    for c in m.get("tool_calls") or []:
        fn = c.get("function") or {}
        lines.append(f"→ tool call {fn.get('name')} ({c.get('id')}): {fn.get('arguments')}")
    if m.get("role") == "tool":
        lines.insert(0, f"(answers {m.get('tool_call_id')})")
    return lines


def _tool(t: dict[str, Any]) -> tuple[str, Any]:
    inner = t.get("function")
    fn: dict[str, Any] = inner if isinstance(inner, dict) else t
    schema = fn.get("parameters", fn.get("input_schema"))
    return str(fn.get("name")), {"description": fn.get("description"), "schema": schema}


class _Out:
    """Pieces of literal text with their styles, assembled into one `Content`."""

    def __init__(self) -> None:
        self.parts: list[str | tuple[str, str]] = []

    def append(self, text: str, style: str = "") -> None:
        self.parts.append((text, style) if style else text)

    def plain(self) -> str:
        return "".join(p if isinstance(p, str) else p[0] for p in self.parts)


def call_text(call: LLMCall, n: int, out: _Out | None = None) -> _Out:
    """One call, as the view shows it."""
    out = out if out is not None else _Out()
    u = call.usage
    cost = f"${u.cost_usd:.4f}" if call.cost_known else "price unknown"
    flags = [f for f, on in (("repair", call.repair), ("cached", call.cached)) if on]
    out.append(f"Call {n}: {call.role} · {call.provider}:{call.model}", style="bold")
    out.append(f"{' · ' + ', '.join(flags) if flags else ''}\n", style="bold $warning" if flags else "")
    out.append(f"{call.base_url or 'provider default URL'} · {call.duration_s:.2f} s · {u.input_tokens} in"
               f" + {u.cache_read_tokens} cached + {u.cache_write_tokens} written / {u.output_tokens} out tokens"
               f" · {cost}" + (f" · HTTP {call.status}" if call.status else "") + "\n", style="$text-muted")
    for r in call.retries:
        wait = f" (waited {r.wait_s:g} s)" if r.wait_s else ""
        out.append(f"retry: {r.cause}{wait}\n", style="$error")
    req = call.request
    params = {k: v for k, v in req.items() if k not in ("messages", "system", "tools")}
    out.append("── parameters ──\n", style="bold $accent")
    out.append(json.dumps(params, ensure_ascii=False) + "\n")
    system = req.get("system")
    if system:
        out.append("── system ──\n", style="bold $accent")
        for b in system if isinstance(system, list) else [system]:
            out.append("\n".join(_block(b)) + "\n")
    for i, m in enumerate(req.get("messages") or []):
        out.append(f"── message {i + 1}: {m.get('role')} ──\n", style="bold $accent")
        out.append("\n".join(_message_lines(m)) + "\n")
    for t in req.get("tools") or []:
        name, rest = _tool(t)
        out.append(f"── tool {name} ──\n", style="bold $accent")
        out.append(json.dumps(rest, ensure_ascii=False, indent=1) + "\n")
    out.append("── reply (raw, as received) ──\n", style="bold $success")
    out.append((call.reply if call.reply is not None else "(none)") + "\n\n")
    return out


def calls_of(step: Step) -> list[LLMCall]:
    """The step's calls: the agent's, then the llm user's."""
    return [*step.llm_calls, *(step.ask.llm_calls if step.ask is not None else [])]


class LLMCallsScreen(ModalScreen[None]):
    """The recorded model calls of one step."""

    DEFAULT_CSS = """
    LLMCallsScreen #dialog.llm-calls { width: 96%; max-width: 100%; height: 90%; max-height: 95%; }
    LLMCallsScreen #llm-calls-body { height: auto; }
    """
    BINDINGS = [Binding("escape,q,l", "close", "Close")]

    def __init__(self, step: Step, *, where: str = "") -> None:
        super().__init__()
        self.step = step
        self.where = where
        self.calls = calls_of(step)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="llm-calls") as box:
            n = len(self.calls)
            box.border_title = (f"Step {step_number(self.step.index)}{self.where}: "
                                f"{n} model call{'' if n == 1 else 's'}")
            body = _Out()
            if not self.calls:
                body.append("No model calls were recorded at this step (an agent without a model, a person, "
                            "or an episode recorded before calls were).")
            for i, call in enumerate(self.calls, 1):
                call_text(call, i, body)
            self.text = body.plain()
            """Everything the view shows, as plain text (what a test reads)."""
            yield Static(Content.assemble(*body.parts), id="llm-calls-body")
            yield Static("Esc: close · ↑↓ PgUp PgDn: scroll", classes="hint")

    def action_close(self) -> None:
        self.dismiss(None)
