"""Draws the sim's screens once in the fork server, so that every device process forked from it
starts warm. Imported for that effect alone (`guilens.device.fork_server.PRELOAD`); nothing else
imports it.

Why: a sim's first screens cost several times its later ones, because the fonts are opened
and the glyph tiles drawn the first time each is used (on the launcher and the eleven apps,
about 100 ms of CPU before the second walk through them takes 20 ms). A device process forked
from a warm server shares those caches (copy-on-write) instead of paying that in each of its
first steps, while its run is waiting on them. The server draws while the run imports its own
modules and plans (`guilens.run.workers.warm_hosts` starts it first thing), and a TUI session
keeps one server for every run it starts. The caches change how fast a screen is drawn, never
what is drawn: the sim stays deterministic (tests compare hosted and in-process sims pixel for pixel).
"""

from __future__ import annotations

import contextlib


def warm() -> None:
    """Open the launcher and each app once on a throwaway sim (its first screen of each)."""
    from guilens.actions import KeyPress, OpenApp
    from guilens.device.sim import SimDevice
    from guilens.device.sim.registry import APPS

    sim = SimDevice()
    try:
        sim.observe()
        for short in APPS:
            if short != "launcher":
                sim.act(OpenApp(app=short))
                sim.observe()
                sim.act(KeyPress(key="home"))
    finally:
        sim.close()


with contextlib.suppress(Exception):  # a server that cannot warm up still forks working (cold) devices
    warm()
