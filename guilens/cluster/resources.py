"""How a node says which devices it holds: Ray custom resources, and the `ray start` that declares them.

- `guilens_sim: N`: the node can run N simulated phones (each one a Ray actor holding a `SimDevice`).
- `guilens_adb_<serial>: 1`: the node has the adb device SERIAL attached (its adb server sees it).
  A serial such as `emulator-5554` or `192.168.1.7:5555` holds characters that do not belong in a
  resource name, so every character other than a letter or a digit is written `_XX` (its UTF-8
  bytes in hex): `guilens_adb_emulator_2d5554`, `guilens_adb_192_2e168_2e1_2e7_3a5555`. The mapping
  is reversible (`serial_of`), so the driver knows the serial a resource stands for.

An actor asks for one unit of its device's resource, so Ray places it on a node that holds that
device and no two actors share one (`guilens.cluster.host`).
"""

from __future__ import annotations

import json
import re
import shlex

SIM = "guilens_sim"
ADB_PREFIX = "guilens_adb_"
_ESCAPE = re.compile(r"_([0-9a-f]{2})")


def adb_resource(serial: str) -> str:
    """The resource name for an adb serial (see the module docstring)."""
    if not serial:
        raise ValueError("an adb serial is empty")
    out = []
    for ch in serial:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.extend(f"_{b:02x}" for b in ch.encode("utf-8"))
    return ADB_PREFIX + "".join(out)


def serial_of(resource: str) -> str | None:
    """The serial an adb resource names, or None for a resource that is not one of ours."""
    if not resource.startswith(ADB_PREFIX) or len(resource) == len(ADB_PREFIX):
        return None
    raw = resource[len(ADB_PREFIX):]
    out = bytearray()
    i = 0
    while i < len(raw):
        m = _ESCAPE.match(raw, i)
        if m:
            out.append(int(m.group(1), 16))
            i = m.end()
        elif raw[i].isascii() and raw[i].isalnum():
            out += raw[i].encode()
            i += 1
        else:
            return None
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


def resource_for(spec: str) -> str:
    """The resource an actor for a device spec (`sim`, `adb:SERIAL`) asks for."""
    if spec == "sim":
        return SIM
    kind, _, serial = spec.partition(":")
    if kind == "adb" and serial:
        return adb_resource(serial)
    raise ValueError(f"{spec!r} is not a device a cluster can declare: use sim or adb:SERIAL")


def declared_devices(resources: dict[str, float]) -> list[str]:
    """The device specs a cluster's resources (`ray.cluster_resources()`) declare, sims first:
    `sim` once per unit of `guilens_sim`, then `adb:SERIAL` per declared serial, sorted."""
    specs = ["sim"] * int(resources.get(SIM, 0))
    for name in sorted(resources):
        serial = serial_of(name)
        if serial is not None and resources[name] >= 1:
            specs.append(f"adb:{serial}")
    return specs


def node_resources(sims: int, serials: list[str]) -> dict[str, int]:
    """The `--resources` of a node holding `sims` simulated phones and the adb `serials`."""
    out: dict[str, int] = {SIM: sims} if sims else {}
    for s in serials:
        out[adb_resource(s)] = 1
    return out


def node_command(sims: int, serials: list[str], *, address: str | None, ray: str = "ray",
                 extra: list[str] | None = None) -> list[str]:
    """`ray start` for a node: the head when `address` is None, else a node joining `address`."""
    cmd = [ray, "start"]
    cmd += ["--head"] if address is None else [f"--address={address}"]
    res = node_resources(sims, serials)
    if res:
        cmd.append("--resources=" + json.dumps(res, separators=(",", ":")))
    return cmd + list(extra or [])


def shell_line(cmd: list[str]) -> str:
    return " ".join(shlex.quote(c) for c in cmd)
