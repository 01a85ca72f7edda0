"""Devices guilens can drive: the built-in simulated phone and real phones over adb.

Kept import-light: the sim (Pillow drawing) and adbutils load only when a device is opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guilens.device.base import Device

DEVICE_SPECS = "sim, adb (the only attached device) or adb:SERIAL"


def open_device(spec: str, **kw: Any) -> Device:
    """Open a device by its spec: `sim`, `adb` or `adb:SERIAL`; keyword arguments go to its constructor.

    An unknown spec is the user's mistake and raises `guilens.cli.UserError`;
    a device that cannot be reached raises a `DeviceError` that says how to fix it.
    """
    kind, sep, rest = spec.strip().partition(":")
    if kind == "sim" and not sep:
        from guilens.device.sim import SimDevice

        return SimDevice(**kw)
    if kind == "adb" and (not sep or rest):
        from guilens.device.adb import AdbDevice

        return AdbDevice(rest or None, **kw)
    from guilens.cli import UserError

    if kind == "adb":
        raise UserError(f"device {spec!r} names no serial: use adb or adb:SERIAL (`guilens devices` lists them)")
    raise UserError(f"unknown device {spec!r}: use {DEVICE_SPECS}")


__all__ = ["DEVICE_SPECS", "open_device"]
