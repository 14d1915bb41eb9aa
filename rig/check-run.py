#!/usr/bin/env python3
"""Judge one guest run from its logs: the tests' TAP and the kernel console.

check-run.py --variant V --tap TAP --console CONSOLE --groups-dir DIR
             --groups "g1 g2" --counts FILE [--nodes K]
check-run.py --total FILE...

Prints one line per test and, last, "N passed, N failed[, N skipped]";
exits 1 if any test failed or was missing, the guest did not finish, or the
kernel reported a problem (BUG, Oops, WARNING, panic, lockdep, KASAN, UBSAN,
kmemleak, debugobjects, busy inodes, a failed freeze).  A test that provokes
a kernel warning on purpose first logs "rig: expect-warning TEXT" to
/dev/kmsg: the next warning whose report names TEXT is then expected and
not a failure, and an expected warning that never comes is.  --counts writes the three numbers for
--total, which adds up several runs into one closing line.

--nodes K judges a cluster run (rig/cluster.py): TAP and CONSOLE are node
1's, PREFIX-node1.log; node N's consoles and TAP logs are PREFIX-nodeN.log,
then PREFIX-nodeN.2.log... for each time it was booted again.  The tests
are node 1's; a kernel report on any node's console fails the run; every
boot of every node must reach "rig: done", unless the runner killed it on
request ("rig: node N killed on request" at the end of its console).
"""

import argparse
import os
import re
import sys

# (regex, what it is): checked in order on every console line; the first
# match names the report.
KERNEL_REPORTS = [
    (r"Kernel panic - not syncing", "kernel panic"),
    (r"BUG: KASAN: ", "KASAN report"),
    (r"UBSAN: ", "UBSAN report"),
    (r"unreferenced object 0x", "kmemleak: leaked object"),
    (r"kmemleak: \d+ new suspected memory leaks", "kmemleak: leaked object"),
    # Not "Cannot allocate a scan area": kmemleak then scans the whole
    # object and stays on (fault injection makes that happen).
    (r"kmemleak: .*(disabled|Cannot allocate a kmemleak_object)",
     "kmemleak disabled itself"),
    (r"WARNING: (possible (circular|recursive|irq)|inconsistent lock|bad unlock"
     r"|held lock|lock held|suspicious RCU|nested lock|Nested lock|"
     r"chain_key|MAX_LOCKDEP)", "lockdep report"),
    (r"INFO: possible (circular|recursive|irq)", "lockdep report"),
    (r"BUG: sleeping function called from invalid context",
     "sleep in atomic context"),
    (r"ODEBUG: ", "debugobjects report"),
    (r"VFS: Busy inodes after unmount", "busy inodes after unmount"),
    (r"Oops: |BUG: unable to handle|BUG: kernel NULL pointer dereference"
     r"|general protection fault",
     "kernel Oops"),
    (r"kernel BUG at |BUG: ", "kernel BUG"),
    (r"WARNING: |------------\[ cut here \]------------", "kernel WARNING"),
    (r"INFO: task .* blocked for more than", "hung task"),
    (r"Freezing .* (failed|aborted) after", "freezer failure"),
    (r"rcu: INFO: .*detected stalls", "RCU stall"),
    (r"list_(add|del) corruption", "list corruption"),
    # The guest has less memory than its initramfs needs: files at the
    # end of it (usr/bin...) are missing, and tests fail for odd reasons.
    (r"Initramfs unpacking failed", "initramfs unpacking failed"),
]
KERNEL_RE = [(re.compile(p), what) for p, what in KERNEL_REPORTS]

RESULT_RE = re.compile(r"^(ok|not ok) (\d+) ?-? ?([^#]*?)\s*(?:#\s*(\S+)\s*(.*))?$")
PLAN_RE = re.compile(r"^1\.\.(\d+)")
BEGIN_RE = re.compile(r"^rig: begin (\S+)$")
EXPECT_RE = re.compile(r"rig: expect-warning (.+)$")
CUT_RE = re.compile(r"------------\[ cut here \]------------")
WARN_RE = re.compile(r"WARNING: ")
END_RE = re.compile(r"^rig: end (\S+) rc=(\d+)$")
AGENT_RE = re.compile(r"rig: agent: running")


def read_lines(path):
    try:
        with open(path, "rb") as f:
            data = f.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    return [l.rstrip("\r") for l in data.replace("\r\n", "\n").split("\n")]


class Run:
    def __init__(self, variant):
        self.variant = variant
        self.passed = self.failed = self.skipped = 0

    def line(self, verdict, name, detail=""):
        if verdict == "PASS":
            self.passed += 1
        elif verdict == "SKIP":
            self.skipped += 1
        else:
            self.failed += 1
        text = f"{verdict:4} {self.variant:5} {name}"
        if detail:
            text += f": {detail}"
        print(text)

    def fail(self, name, detail, context=()):
        self.line("FAIL", name, detail)
        for c in context:
            print(f"     | {c}")


def check_program(run, name, body, rc):
    """Judge one test program's TAP output (the lines between its markers)."""
    plan = None
    results = 0
    failed = 0
    diag = []
    for l in body:
        if l.startswith("Bail out!"):
            run.fail(name, l)
            failed += 1
            continue
        m = PLAN_RE.match(l)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT_RE.match(l)
        if not m:
            if l.strip():
                diag.append(l)
            continue
        results += 1
        status, _, test, directive, reason = m.groups()
        test = test.strip()
        if test.startswith("global."):
            test = test[len("global."):]
        full = f"{name}.{test}" if test else f"{name}#{m.group(2)}"
        directive = (directive or "").upper()
        if status == "ok" and directive == "SKIP":
            run.line("SKIP", full, reason)
        elif status == "ok":
            run.line("PASS", full)
        elif directive in ("TODO", "XFAIL"):
            run.line("PASS", full, "expected failure")
        else:
            run.fail(full, "failed", diag[-15:])
            failed += 1
        diag = []
    if rc is None:
        run.fail(name, "did not finish (guest crashed or hung)", body[-15:])
    elif plan is None:
        run.fail(name, f"printed no TAP plan (exit {rc})", body[-15:])
    elif results != plan:
        run.fail(name, f"{plan} tests planned, {results} reported", body[-15:])
    elif rc != 0 and not failed:
        run.fail(name, f"exited with status {rc} after all tests passed")


def judge_programs(run, args, tap):
    """Each expected test program's TAP, from node 1's (or the only) log."""
    expected = []
    for g in args.groups.split():
        path = os.path.join(args.groups_dir, g, "list")
        try:
            progs = [p for p in read_lines(path) if p]
        except OSError:
            progs = []
        if not progs:
            run.fail(g, f"no test programs listed in {path}")
        expected += [f"{g}/{p}" for p in progs]

    # Split the TAP stream into programs.
    seen = {}
    current = None
    body = []
    for l in tap:
        m = BEGIN_RE.match(l)
        if m:
            if current:
                seen[current] = (body, None)
            current, body = m.group(1), []
            continue
        m = END_RE.match(l)
        if m and current == m.group(1):
            seen[current] = (body, int(m.group(2)))
            current, body = None, []
            continue
        if current:
            body.append(l)
    if current:
        seen[current] = (body, None)

    for name in expected:
        if name not in seen:
            run.fail(name, "did not run")
            continue
        body, rc = seen[name]
        check_program(run, name, body, rc)


def kernel_reports(console):
    """(what, test running, line index) of the kernel's reports on a console."""
    test_at = "boot"
    reports = []
    expected = []   # (text, test) of warnings announced and not yet seen
    skip = set()    # console lines of an expected warning's report
    for i, l in enumerate(console):
        m = BEGIN_RE.search(l)
        if m:
            test_at = m.group(1)
            continue
        m = END_RE.search(l)
        if m:
            for text, t in expected:
                reports.append((f"expected warning '{text}' did not come", t, i))
            expected = []
            test_at = f"the time after {m.group(1)}"
            continue
        m = EXPECT_RE.search(l)
        if m:
            expected.append((m.group(1).strip(), test_at))
            continue
        if AGENT_RE.search(l):
            test_at = "its agent's commands"
            continue
        if i in skip:
            continue
        if expected and CUT_RE.search(l):
            block = console[i:i + 4]
            hit = next((e for e in expected
                        if any(e[0] in b for b in block[1:])), None)
            if hit:
                expected.remove(hit)
                skip.update(i + j for j, b in enumerate(block)
                            if WARN_RE.search(b))
                continue
        for rx, what in KERNEL_RE:
            if rx.search(l):
                reports.append((what, test_at, i))
                break
    for text, t in expected:
        reports.append((f"expected warning '{text}' did not come", t,
                        len(console) - 1))
    return reports


def judge_console(run, console, where=""):
    """Fail the run on each kind of kernel report, once per test."""
    done_reported = set()
    for what, test_at, i in kernel_reports(console):
        if (what, test_at) in done_reported:
            continue
        done_reported.add((what, test_at))
        run.fail("kernel", f"{what}{where} during {test_at}", console[i:i + 12])


def judge_end(run, name, path, console, tap, variant):
    """A boot that should have finished: its leak scan and its last line."""
    if variant == "debug" and not any(
            l.startswith("rig: kmemleak done") for l in console):
        what = "the debug run" if name == "guest" else f"{name}'s debug boot"
        run.fail("kernel", f"{what} did not complete its kmemleak scan")
    if not any(l == "rig: done" for l in tap):
        why = "did not finish"
        if any("rig: QEMU killed after" in l for l in console):
            why = "hung: QEMU killed at the timeout"
        run.fail(name, why)
        print(f"---- last 50 lines of {path} ----")
        for l in console[-50:]:
            print(l)
        print("----")


def node_logs(path, n):
    """Node n's log files, one per boot, from node 1's first (PREFIX-node1.log)."""
    prefix = path[:-len("-node1.log")]
    logs = [f"{prefix}-node{n}.log"]
    i = 2
    while os.path.exists(f"{prefix}-node{n}.{i}.log"):
        logs.append(f"{prefix}-node{n}.{i}.log")
        i += 1
    return logs


def check_cluster(run, args):
    for p in (args.console, args.tap):
        if not p.endswith("-node1.log"):
            sys.exit(f"check-run.py: --nodes needs node 1's logs, PREFIX-node1.log, not {p}")
    judge_programs(run, args, read_lines(args.tap))
    for n in range(1, args.nodes + 1):
        consoles = node_logs(args.console, n)
        taps = node_logs(args.tap, n)
        if not os.path.exists(consoles[0]):
            run.fail(f"node {n}", f"never booted (no {consoles[0]})")
            continue
        for i, path in enumerate(consoles, 1):
            console = read_lines(path)
            tap = read_lines(taps[i - 1]) if i <= len(taps) else []
            boot = f"node {n}" if len(consoles) == 1 else f"node {n}, boot {i}"
            judge_console(run, console, f" on {boot}")
            if f"rig: node {n} killed on request" in console:
                continue
            judge_end(run, boot, path, console, tap, args.variant)


def check(args):
    run = Run(args.variant)
    if args.nodes:
        check_cluster(run, args)
    else:
        console = read_lines(args.console)
        judge_programs(run, args, read_lines(args.tap))
        judge_console(run, console)
        judge_end(run, "guest", args.console, console, read_lines(args.tap),
                  args.variant)

    summary = f"{run.passed} passed, {run.failed} failed"
    if run.skipped:
        summary += f", {run.skipped} skipped"
    label = f"{args.variant} kernel"
    if args.nodes:
        label += f", {args.groups or 'a cluster'} on {args.nodes} nodes"
    print(f"{label}: {summary}")
    if args.counts:
        with open(args.counts, "w") as f:
            f.write(f"{run.passed} {run.failed} {run.skipped}\n")
    return 1 if run.failed else 0


def total(files):
    p = f = s = 0
    for path in files:
        try:
            with open(path) as fh:
                a, b, c = (int(x) for x in fh.read().split())
        except (OSError, ValueError):
            print(f"no result from {path}")
            f += 1
            continue
        p, f, s = p + a, f + b, s + c
    summary = f"{p} passed, {f} failed"
    if s:
        summary += f", {s} skipped"
    print(summary)
    return 1 if f else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant")
    ap.add_argument("--tap")
    ap.add_argument("--console")
    ap.add_argument("--groups-dir")
    ap.add_argument("--groups", default="")
    ap.add_argument("--counts")
    ap.add_argument("--nodes", type=int, default=0,
                    help="a cluster run of this many nodes")
    ap.add_argument("--total", nargs="+")
    args = ap.parse_args()
    if args.total:
        return total(args.total)
    if not (args.variant and args.tap and args.console and args.groups_dir):
        ap.error("--variant, --tap, --console and --groups-dir are needed")
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
