"""textual-serve's server as `guilens web` runs it: sessions that end with the server, quiet logs.

Here, not in `guilens.commands.web`, because textual-serve is part of the Textual
stack and only `guilens/screens/` imports it; the command keeps the checks a
person sees (the served words, the port, loopback) and calls `serve_forever`.

What it changes in textual-serve's `Server`:
- Ctrl+C does not wait on open tabs: aiohttp waits up to a minute for open
  websockets before it stops, so each session's task is cancelled on shutdown
  (the session then closes its socket and asks its guilens process to quit,
  textual-serve's own clean-up);
- one log line per HTTP request is dropped, so a session that failed to start
  stands out;
- its banner is replaced by the caller's `on_ready` lines.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any


def serve_forever(command: str, *, title: str, host: str, port: int, url: str,
                  on_ready: Callable[[], None]) -> None:
    """Serve `command` (one process per browser tab) until Ctrl+C. Raises OSError when the port
    cannot be bound."""
    from textual_serve.server import Server

    class GuilensServer(Server):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.sessions: set[asyncio.Task[Any]] = set()

        async def handle_websocket(self, request: Any) -> Any:
            task = asyncio.current_task()
            assert task is not None
            self.sessions.add(task)
            try:
                return await super().handle_websocket(request)
            finally:
                self.sessions.discard(task)

        async def on_shutdown(self, app: Any) -> None:
            for task in list(self.sessions):
                task.cancel()

        def initialize_logging(self) -> None:
            super().initialize_logging()
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

        async def on_startup(self, app: Any) -> None:
            on_ready()

    GuilensServer(command, host=host, port=port, title=title, public_url=url).serve()
