"""The fork server that device processes come from, startable before anything heavy is imported.

`guilens.device.process_host` forks each device from a fork server that has
imported the sim once (its docstring says why). Importing the sim takes about
0.2 s in the server, and `guilens run` cannot make a device until the server
has done it, so the server should start as early as a run knows it will host
sims. This module imports only the standard library: `guilens.run.workers.warm_hosts`
starts the server from here at the top of a command, before the caller itself
imports the runner (pydantic, the actions, numpy: about as long again), so
the two import side by side on two cores instead of one after the other.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
from collections.abc import Iterator
from typing import Any

PRELOAD = ["guilens.device.process_host", "guilens.device.sim", "guilens.device.warm_sim"]
"""What the fork server imports before forking anyone: the device process's own code, the sim, and
`warm_sim`, which draws the sim's screens once so the devices start with its fonts and glyphs loaded."""


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: it imports the sim (about 0.2 s) while the
    caller goes on (importing, loading scenarios, planning), instead of while the first device waits for
    it. Harmless when it runs already, and where there is none (spawn)."""
    ctx = context()
    if ctx.get_start_method() == "forkserver":
        from multiprocessing import forkserver

        with real_stderr():
            forkserver.ensure_running()


def context() -> Any:
    """The fork server, preloaded with the sim, where the platform has one; else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover - Windows
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)  # no effect once the server runs: it has what it preloaded
    return ctx


@contextlib.contextmanager
def real_stderr() -> Iterator[None]:
    """Hand the fork server the process's real stderr. multiprocessing's resource tracker, which the
    fork server starts first, passes `sys.stderr.fileno()` to its child; under the TUI, Textual has
    swapped `sys.stderr` for a capture whose `fileno()` is -1, and the start fails with "bad value(s)
    in fds_to_keep". For that moment `sys.stderr` is the one the interpreter started with."""
    try:
        usable = sys.stderr is None or sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # no fileno at all: the tracker skips it itself
        usable = True
    if usable or sys.__stderr__ is None:
        yield
        return
    saved = sys.stderr
    sys.stderr = sys.__stderr__
    try:
        yield
    finally:
        sys.stderr = saved
