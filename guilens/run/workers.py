"""The devices of a run: opening them, naming them apart, closing them.

A worker is one device with its own agent and the attempt running on it. Each
gets a label (`device_labels`): the device's own name when no other device of
the run has it (`sim`, `adb:SERIAL`), numbered when several share it (`sim-1`,
`sim-2`). The label is what the record and the observers know a device by
(`Episode.device`), and what a take-over, a single step or a mark names.

Where a device runs: with more than one device in a run, each sim opened from a
spec runs in a process of its own (`guilens.device.process_host`), reached
through a `HostedDevice`, so the sims draw on separate cores instead of taking
turns on one GIL. A run with one device keeps it in this process: hosting a
lone sim buys little (1.03x, 1.14x and 1.07x the in-process rate on the memory
pack, headless, in three sets of 5-6 fresh runs each, the last two with
`benchmarks/bench_parallel.py --hosted-one`), and a TUI watching it would
decode every screen it shows (about 9 ms each), which an in-process sim hands
over as pixels. A real phone (adb) stays here too: its time is spent waiting on
the adb server, which threads already overlap. There is no setting for it: a
caller who wants sims as threads (the benchmark's reference) hands open devices
in `plan.devices`, which are used as they are.

A hosted sim encodes its screens where it draws, and they reach this process
as PNG bytes (`guilens.encoded_screen.EncodedScreen`) that the recorder writes as they
are: this process decodes a screen only when someone looks at its pixels (the
TUI, an LLM agent). Its children come from a fork server that imports the sim
and draws its screens once first (about 0.3 s); `warm_hosts` starts it as soon
as the device specs are known, importing nothing heavy itself
(`guilens.device.fork_server`), so that work runs beside the caller's own
imports, loading and planning. The run's process names the sim to its
children (`process_host.Imported`) rather than importing it to hand it over:
that import sat between `Runner.run()` and the first step (0.05 s with
bytecode cached, 0.14 s without), and nothing else in a hosted run needs it
here. Two sims against one on the memory pack, side by side with the tree
before (`benchmarks/bench_parallel.py --baseline`, medians): 1.66x against
1.62x over 6 rounds with the two trees taking turns to run first; 1.71x
against 1.59x (5 rounds) and 1.82x against 1.49x (6 rounds, bytecode cached)
with the tree before always first. The first step now comes 0.10-0.15 s after
`Runner.run()` begins, against 0.26 s before (back-to-back runs, bytecode not
cached).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.control import QuestionChannel, RunControl
    from guilens.device.base import Device
    from guilens.run.attempt import AttemptRunner
    from guilens.run.plan import RunPlan


def device_labels(names: list[str]) -> list[str]:
    """A distinct label per device: its name when no other device has it, else `name-1`,
    `name-2`, ... in order (two sims: `sim-1`, `sim-2`; `adb:SERIAL` names are already unique)."""
    taken = set(names)
    seen: dict[str, int] = {}
    out: list[str] = []
    for name in names:
        if names.count(name) == 1:
            out.append(name)
            continue
        n = seen.get(name, 0)
        while True:
            n += 1
            label = f"{name}-{n}"
            if label not in taken:
                break
        seen[name] = n
        taken.add(label)
        out.append(label)
    return out


class Worker:
    """One device, its label, its agent, and the attempt running on it (for marks)."""

    def __init__(self, device: Device, agent: Any, owned: bool, label: str = "") -> None:
        self.device = device
        self.agent = agent
        self.owned = owned
        """Opened by the run (from a spec), so the run closes it; a device handed in is the caller's."""
        self.label = label or str(getattr(device, "name", "device"))
        self.current: AttemptRunner | None = None


def _open(plan: RunPlan, spec: Any, host: Any = None) -> tuple[Device, bool]:
    if not isinstance(spec, str):
        return spec, False
    from guilens.device import open_device

    s = plan.settings
    if host is not None:
        from guilens.device.hosted import HostedDevice

        return HostedDevice(host, prefetch=True), True  # a sim changes only when acted on
    if spec == "sim":
        return open_device("sim", width=s.screen_width, height=s.screen_height), True
    return open_device(spec), True


def is_sim_spec(device: Any) -> bool:
    """A device given as the spec `sim` (not an open device): the runner makes the sim itself."""
    return isinstance(device, str) and device.strip() == "sim"


def hosted(devices: list[Any]) -> bool:
    """The run will put its sims in processes of their own: it has several devices, one a sim spec."""
    return len(devices) > 1 and any(is_sim_spec(d) for d in devices)


def warm_hosts(devices: list[Any]) -> None:
    """Call as soon as a run's device specs are known: when it will host sims, their fork server
    starts now and imports the sim beside the caller's own work (loading and planning), not while the
    first device waits for it (`open_workers`)."""
    if hosted(devices):
        from guilens.device.fork_server import start_fork_server  # standard library only: starts at once

        start_fork_server()


def _start_hosts(plan: RunPlan) -> list[Any]:
    """A started `ProcessHost` for each sim spec when the run has several devices, else None each.
    All children start before any is waited for, so they make their sims side by side."""
    hosts: list[Any] = [None] * len(plan.devices)
    if not hosted(plan.devices):
        return hosts
    from guilens.device.process_host import Imported, ProcessHost

    s = plan.settings
    sim = Imported("guilens.device.sim", "SimDevice")  # this process never imports the sim for them
    try:
        for i, spec in enumerate(plan.devices):
            if is_sim_spec(spec):
                hosts[i] = ProcessHost(sim, width=s.screen_width, height=s.screen_height)
    except BaseException:
        for h in hosts:
            if h is not None:
                h.close()
        raise
    return hosts


def open_workers(plan: RunPlan, *, channel: QuestionChannel, control: RunControl) -> list[Worker]:
    """Open every device of the plan, label them and give each its agent; on any failure close
    what was opened and raise (a `DeviceError` names the device)."""
    workers: list[Worker] = []
    hosts = _start_hosts(plan)
    try:
        for i, spec in enumerate(plan.devices):
            host, hosts[i] = hosts[i], None  # from here the worker's device owns it
            try:
                device, owned = _open(plan, spec, host)
            except BaseException:
                if host is not None:
                    host.close()
                raise
            workers.append(Worker(device, None, owned))
        labels = device_labels([str(getattr(w.device, "name", "device")) for w in workers])
        for w, label in zip(workers, labels, strict=True):
            w.label = label
            w.agent = plan.make_agent(channel=channel, control=control)
    except BaseException:
        close_workers(workers)
        for h in hosts:
            if h is not None:
                h.close()
        raise
    return workers


def close_workers(workers: list[Worker]) -> None:
    """Close the devices the run opened; a device that fails to close does not stop the others."""
    for w in workers:
        if w.owned:
            with contextlib.suppress(Exception):
                w.device.close()
