"""The record of one call (`LLMCall`): the wire body with each image replaced by a reference.

Images are what make a request big (a screenshot is ~100-500 KB of base64) and
are already in the episode (`screens/NNNN.png`), so the record keeps a
reference instead: the `_ref` the caller put on the canonical image block (the
agent knows which screen it sent), the pixel size, the byte count, the media
type and a short hash (enough to tell two unnamed images apart, e.g. the
judge's before/after composites). Everything else is kept as sent, so every
text the server received (system prompt, messages, tool schemas) is in the
record character for character.

The match from a wire image back to its `_ref` is by content (the base64
payload), not by position: a provider may move images (OpenAI's tool messages
carry no images, so a tool result's image moves into the next user message).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
from datetime import datetime
from typing import Any

from guilens.episode_model import LLMCall, Retry, Usage
from guilens.llm.spec import safe_url


def refs_of(params: dict[str, Any]) -> dict[str, str]:
    """base64 payload -> `_ref`, for every canonical image block that names its screen."""
    out: dict[str, str] = {}

    def walk(blocks: Any) -> None:
        for b in blocks if isinstance(blocks, list) else []:
            if not isinstance(b, dict):
                continue
            if b.get("type") == "image" and isinstance(b.get("_ref"), str):
                data = (b.get("source") or {}).get("data")
                if isinstance(data, str):
                    out[data] = b["_ref"]
            if b.get("type") == "tool_result":
                walk(b.get("content"))

    for m in params.get("messages") or []:
        walk(m.get("content"))
    return out


def image_ref(data: str, media_type: str | None, refs: dict[str, str]) -> dict[str, Any]:
    """What stands in a record for the base64 image `data`."""
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        raw = b""
    ref: dict[str, Any] = {"ref": refs.get(data), "bytes": len(raw), "media_type": media_type,
                           "sha256": hashlib.sha256(raw).hexdigest()[:16]}
    try:
        from PIL import Image

        with Image.open(io.BytesIO(raw)) as img:  # reads the header only
            ref["width"], ref["height"] = img.size
    except Exception:  # not an image PIL knows: size unknown, the rest still says what it was
        ref["width"] = ref["height"] = None
    return ref


def _data_url(url: str) -> tuple[str | None, str] | None:
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    return head or None, data


def redact_images(value: Any, refs: dict[str, str]) -> Any:
    """A copy of a wire body with every base64 image (Anthropic `source.data`, OpenAI data URL) replaced
    by `image_ref`."""
    if isinstance(value, list):
        return [redact_images(v, refs) for v in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "image" and isinstance(value.get("source"), dict):
        src = value["source"]
        if src.get("type") == "base64" and isinstance(src.get("data"), str):
            return {**value, "source": {**src, "data": image_ref(src["data"], src.get("media_type"), refs)}}
    if value.get("type") == "image_url" and isinstance(value.get("image_url"), dict):
        url = value["image_url"].get("url")
        parsed = _data_url(url) if isinstance(url, str) else None
        if parsed is not None:
            return {**value, "image_url": {**value["image_url"], "url": image_ref(parsed[1], parsed[0], refs)}}
    return {k: redact_images(v, refs) for k, v in value.items()}


def images_in(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The image references of a recorded request, in order."""
    found: list[dict[str, Any]] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if "sha256" in v and "bytes" in v and "media_type" in v:
                found.append(v)
                return
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(request)
    return found


def make_record(
    *,
    role: str,
    provider: str,
    model: str,
    base_url: str | None,
    params: dict[str, Any],
    body: dict[str, Any],
    started_at: datetime,
    duration_s: float,
    reply: str | None,
    status: int | None = None,
    request_id: str | None = None,
    cached: bool = False,
    repair: bool = False,
    retries: list[Retry] | None = None,
    usage: Usage | None = None,
    cost_known: bool = True,
) -> LLMCall:
    """The `LLMCall` for a call whose canonical request was `params` and whose wire body was `body`."""
    return LLMCall(
        role=role, provider=provider, model=model, base_url=safe_url(base_url), started_at=started_at,
        duration_s=round(duration_s, 3), request=redact_images(body, refs_of(params)), reply=reply,
        status=status, request_id=request_id, cached=cached, repair=repair, retries=list(retries or []),
        usage=(usage or Usage()).model_copy(update={"retries": []}), cost_known=cost_known,
    )
