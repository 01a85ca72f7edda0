"""The `/proc` files adb tools read from a phone, made up plausibly for the simulated one.

Monitoring tools and agent harnesses `cat /proc/stat` (CPU load from two
samples), `/proc/meminfo`, `/proc/uptime`, `/proc/version`, `/proc/cpuinfo`
and `/proc/loadavg`, and parse them with the kernel's formats. The numbers
describe an idle 8-core x86_64 emulator (the ABI `getprop` reports) that
booted when the bridge started: counters grow with uptime, so two samples of
`/proc/stat` give a small, sane load rather than a division by zero.
"""

from __future__ import annotations

from collections.abc import Callable

CPUS = 8
HZ = 100
MEM_TOTAL_KB = 8_039_556
KERNEL = (
    "Linux version 6.1.57-android14-11-gb12c3ca1e1a9-ab11087419 (build-user@build-host) "
    "(Android (10087095, +pgo, +bolt, +lto, -mlgo, based on r487747c) clang version 17.0.2) "
    "#1 SMP PREEMPT Thu Nov 16 17:23:51 UTC 2023\n"
)


def _uptime(up: float) -> str:
    return f"{up:.2f} {up * CPUS * 0.93:.2f}\n"


def _cpu_times(up: float, share: float) -> list[int]:
    """user nice system idle iowait irq softirq steal guest guest_nice, in jiffies, for `share` of the CPUs."""
    total = up * HZ * CPUS * share + 1
    busy = [0.045, 0.002, 0.02]  # user, nice, system: an idle phone
    parts = [int(total * b) for b in busy]
    return [*parts, int(total * 0.93), int(total * 0.002), 0, int(total * 0.001), 0, 0, 0]


def _stat(up: float) -> str:
    lines = ["cpu  " + " ".join(map(str, _cpu_times(up, 1.0)))]
    lines += [f"cpu{i} " + " ".join(map(str, _cpu_times(up, 1.0 / CPUS))) for i in range(CPUS)]
    ticks = int(up * HZ)
    lines += [
        f"intr {ticks * 37}",
        f"ctxt {ticks * 180}",
        "btime 1735203600",
        f"processes {1200 + ticks // 50}",
        "procs_running 1",
        "procs_blocked 0",
        f"softirq {ticks * 9} 0 {ticks * 3} 0 {ticks * 2} 0 0 {ticks} {ticks * 2} 0 {ticks}",
    ]
    return "\n".join(lines) + "\n"


def _meminfo(up: float) -> str:
    free = 3_412_880
    rows = [
        ("MemTotal", MEM_TOTAL_KB), ("MemFree", free), ("MemAvailable", 5_721_344), ("Buffers", 9_812),
        ("Cached", 2_301_556), ("SwapCached", 0), ("Active", 1_690_212), ("Inactive", 1_774_908),
        ("Unevictable", 162_104), ("Mlocked", 162_104), ("SwapTotal", 4_019_776), ("SwapFree", 4_019_776),
        ("Dirty", 64), ("Writeback", 0), ("AnonPages", 1_291_772), ("Mapped", 1_067_232),
        ("Shmem", 20_720), ("Slab", 245_516), ("KernelStack", 31_424), ("PageTables", 58_212),
        ("CommitLimit", 8_039_552), ("Committed_AS", 67_133_360), ("VmallocTotal", 34_359_738_367),
    ]
    return "".join(f"{name + ':':<16}{kb:>8} kB\n" for name, kb in rows)


def _cpuinfo(up: float) -> str:
    block = (
        "processor\t: {i}\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 158\n"
        "model name\t: Intel(R) Core(TM) i7-9700 CPU @ 3.00GHz\nstepping\t: 13\ncpu MHz\t\t: 3000.000\n"
        "cache size\t: 12288 KB\nphysical id\t: 0\nsiblings\t: {n}\ncore id\t\t: {i}\ncpu cores\t: {n}\n"
        "fpu\t\t: yes\nflags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 "
        "clflush mmx fxsr sse sse2 ss ht syscall nx rdtscp lm constant_tsc pni ssse3 cx16 sse4_1 sse4_2 "
        "popcnt aes xsave avx hypervisor\nbogomips\t: 6000.00\naddress sizes\t: 39 bits physical, "
        "48 bits virtual\n\n"
    )
    return "".join(block.format(i=i, n=CPUS) for i in range(CPUS))


def _loadavg(up: float) -> str:
    return f"0.31 0.42 0.45 1/1843 {4242 + int(up)}\n"


PROC_FILES: dict[str, Callable[[float], str]] = {
    "stat": _stat,
    "meminfo": _meminfo,
    "uptime": _uptime,
    "version": lambda up: KERNEL,
    "cpuinfo": _cpuinfo,
    "loadavg": _loadavg,
}


def proc_file(path: str, uptime: float) -> bytes | None:
    """The content of `/proc/NAME` `uptime` seconds after boot, or None for a file the sim does not have."""
    name = path.removeprefix("/proc/")
    make = PROC_FILES.get(name)
    return make(uptime).encode() if make is not None else None
