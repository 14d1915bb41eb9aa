#!/usr/bin/env python3
"""Print how long each test group took inside the guest, per kernel variant.

group-times.py TAP-LOG...   (build/logs/tap-std.log, build/logs/tap-debug.log)

The guest's /init writes "rig: boot ... uptime=S" when it starts, "rig: time
GROUP/PROGRAM SECONDS" after each test program and "rig: kmemleak done in
Ss" after the debug kernel's leak scans; this adds the programs up per group
and prints one row per group, one column per log, in seconds, with the boot
(kernel start to /init) and the leak scans on rows of their own.
"""

import re
import sys

BOOT_RE = re.compile(r"^rig: boot \S+ variant=(\S+) .*uptime=([0-9.]+)")
TIME_RE = re.compile(r"^rig: time ([^/\s]+)/\S+ ([0-9.]+)$")
LEAK_RE = re.compile(r"^rig: kmemleak done in ([0-9.]+)s$")


def read(path):
    """(variant, {row: seconds}) of one TAP log."""
    variant, rows = path, {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = BOOT_RE.match(line)
            if m:
                variant = m.group(1)
                rows["(boot to /init)"] = float(m.group(2))
                continue
            m = TIME_RE.match(line)
            if m:
                rows[m.group(1)] = rows.get(m.group(1), 0.0) + float(m.group(2))
                continue
            m = LEAK_RE.match(line)
            if m:
                rows["(kmemleak scans)"] = float(m.group(1))
    return variant, rows


def main(paths):
    if not paths:
        sys.exit(__doc__.strip())
    logs = []
    for p in paths:
        try:
            logs.append(read(p))
        except OSError as e:
            sys.exit(f"group-times.py: {p}: {e.strerror}")
    order = []
    for _, rows in logs:
        for r in rows:
            if r not in order and not r.startswith("("):
                order.append(r)
    order = ["(boot to /init)"] + order + ["(kmemleak scans)", "total"]
    for _, rows in logs:
        rows["total"] = sum(rows.values())
    print(f"{'group':<20}" + "".join(f"{v:>12}" for v, _ in logs))
    for r in order:
        cells = [rows.get(r) for _, rows in logs]
        if all(c is None for c in cells):
            continue
        print(f"{r:<20}" + "".join(
            f"{c:>11.1f}s" if c is not None else f"{'-':>12}" for c in cells))


if __name__ == "__main__":
    main(sys.argv[1:])
