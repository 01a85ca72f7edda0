"""`guilens run --cluster`: a planned run's devices, opened on the cluster for as long as the run lasts.

The plan is made first, as for any run (a bad target, level or agent is said
before the cluster is touched); then the cluster is reached, the devices chosen
(every declared device fit for the scenario, or the `-d` ones; one for a
sequence, which keeps its phone for the whole day) and opened as actors, and
the plan's devices become those `HostedDevice`s. The runner takes them as
devices handed in: it labels them (`sim-1`, `sim-2`, ...) and runs the batch
over them as over local phones; the actors end when the run does.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from guilens.cluster.connect import Cluster

if TYPE_CHECKING:
    from guilens.run.plan import RunPlan


@contextmanager
def on_cluster(address: str, plan: RunPlan, wanted: list[str] | None) -> Iterator[Cluster]:
    """Within: `plan.devices` are the cluster's devices. Raises `ClusterError` (one line, with its exit
    status) or the device's `DeviceError` when one cannot be opened."""
    cluster = Cluster(address)
    try:
        cluster.connect()
        specs = cluster.choose(wanted, one=plan.sequence, sims_only=plan.scenario.device == "sim")
        s = plan.settings
        plan.devices = list(cluster.open(specs, {"width": s.screen_width, "height": s.screen_height}))
        yield cluster
    finally:
        cluster.close()
