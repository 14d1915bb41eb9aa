#!/usr/bin/env python3
"""Unit tests of rig/check-run.py on made-up logs: each way a run can go wrong must fail it."""

import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-run.py")


def tap_prog(name, results, plan=None, rc=0, end=True):
    """The TAP stream /init writes for one program."""
    lines = [f"rig: begin {name}", "TAP version 13",
             f"1..{len(results) if plan is None else plan}"]
    for i, r in enumerate(results, 1):
        lines.append(f"{r} {i} global.t{i}")
    if end:
        lines.append(f"rig: end {name} rc={rc}")
    return lines


class CheckRun(unittest.TestCase):
    def run_check(self, tap, console, progs=("a", "b"), variant="std"):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "g"))
            with open(os.path.join(d, "g", "list"), "w") as f:
                f.write("\n".join(progs) + "\n")
            with open(os.path.join(d, "tap"), "w") as f:
                f.write("\r\n".join(tap) + "\r\n")
            with open(os.path.join(d, "console"), "w") as f:
                f.write("\n".join(console) + "\n")
            p = subprocess.run(
                [sys.executable, CHECK, "--variant", variant, "--tap",
                 os.path.join(d, "tap"), "--console",
                 os.path.join(d, "console"), "--groups-dir", d,
                 "--groups", "g", "--counts", os.path.join(d, "counts")],
                capture_output=True, text=True)
            with open(os.path.join(d, "counts")) as f:
                counts = f.read().split()
        return p.returncode, p.stdout, [int(c) for c in counts]

    def good_tap(self):
        return tap_prog("g/a", ["ok", "ok"]) + tap_prog("g/b", ["ok"]) + ["rig: done"]

    def test_all_pass(self):
        rc, out, counts = self.run_check(self.good_tap(), ["rig: boot"])
        self.assertEqual(0, rc, out)
        self.assertEqual([3, 0, 0], counts)
        self.assertIn("PASS std   g/a.t1", out)
        self.assertTrue(out.rstrip().endswith("std kernel: 3 passed, 0 failed"))

    def test_not_ok_fails(self):
        tap = tap_prog("g/a", ["ok", "not ok"]) + tap_prog("g/b", ["ok"]) + ["rig: done"]
        rc, out, counts = self.run_check(tap, [])
        self.assertEqual(1, rc)
        self.assertEqual([2, 1, 0], counts)
        self.assertIn("FAIL std   g/a.t2: failed", out)

    def test_skip_is_counted_not_failed(self):
        tap = tap_prog("g/a", ["ok", "ok"]) + tap_prog("g/b", []) + ["rig: done"]
        tap[tap.index("1..0")] = "1..1"
        tap.insert(tap.index("rig: end g/b rc=0"), "ok 1 global.x # SKIP no device")
        rc, out, counts = self.run_check(tap, [])
        self.assertEqual(0, rc, out)
        self.assertEqual([2, 0, 1], counts)
        self.assertIn("std kernel: 2 passed, 0 failed, 1 skipped", out)

    def test_program_that_did_not_run_fails(self):
        tap = tap_prog("g/a", ["ok", "ok"]) + ["rig: done"]
        rc, out, _ = self.run_check(tap, [])
        self.assertEqual(1, rc)
        self.assertIn("g/b: did not run", out)

    def test_fewer_results_than_planned_fails(self):
        tap = tap_prog("g/a", ["ok"], plan=2) + tap_prog("g/b", ["ok"]) + ["rig: done"]
        rc, out, _ = self.run_check(tap, [])
        self.assertEqual(1, rc)
        self.assertIn("g/a: 2 tests planned, 1 reported", out)

    def test_no_plan_fails(self):
        tap = ["rig: begin g/a", "rig: end g/a rc=127"] + tap_prog("g/b", ["ok"]) + ["rig: done"]
        rc, out, _ = self.run_check(tap, [])
        self.assertEqual(1, rc)
        self.assertIn("g/a: printed no TAP plan (exit 127)", out)

    def test_bad_exit_after_passing_fails(self):
        tap = tap_prog("g/a", ["ok", "ok"], rc=1) + tap_prog("g/b", ["ok"]) + ["rig: done"]
        rc, out, _ = self.run_check(tap, [])
        self.assertEqual(1, rc)
        self.assertIn("g/a: exited with status 1 after all tests passed", out)

    def test_unfinished_program_and_guest_fail(self):
        tap = tap_prog("g/a", ["ok"], plan=2, end=False)
        rc, out, _ = self.run_check(tap, ["rig: QEMU killed after 20s timeout"])
        self.assertEqual(1, rc)
        self.assertIn("g/a: did not finish", out)
        self.assertIn("guest: hung: QEMU killed at the timeout", out)
        self.assertIn("last 50 lines", out)

    def test_kernel_reports_fail_and_name_the_test(self):
        for line, what in [
            ("[ 1.0] WARNING: CPU: 0 PID: 1 at fs/x.c:1 f+0x1/0x2", "kernel WARNING"),
            ("[ 1.0] BUG: KASAN: slab-use-after-free in f+0x1/0x2", "KASAN report"),
            ("[ 1.0] UBSAN: shift-out-of-bounds in x.c:3:4", "UBSAN report"),
            ("[ 1.0] WARNING: possible circular locking dependency detected", "lockdep report"),
            ("unreferenced object 0xffff888001234000 (size 128):", "kmemleak: leaked object"),
            ("[ 1.0] VFS: Busy inodes after unmount of tmpfs (tmpfs)", "busy inodes after unmount"),
            ("[ 1.0] Oops: general protection fault, probably for non-canonical", "kernel Oops"),
            ("[ 1.0] BUG: kernel NULL pointer dereference, address: 0", "kernel Oops"),
            ("[ 1.0] kernel BUG at mm/slub.c:1!", "kernel BUG"),
            ("[ 1.0] Kernel panic - not syncing: x", "kernel panic"),
            ("[ 1.0] ODEBUG: free active (active state 0) object", "debugobjects report"),
            ("[ 1.0] BUG: sleeping function called from invalid context at x", "sleep in atomic context"),
            ("[ 1.0] kmemleak: Cannot allocate a kmemleak_object structure", "kmemleak disabled itself"),
            ("[ 1.0] kmemleak: Kernel memory leak detector disabled", "kmemleak disabled itself"),
            ("[ 1.0] Initramfs unpacking failed: write error", "initramfs unpacking failed"),
        ]:
            with self.subTest(what=what):
                console = ["rig: begin g/b", line, "rig: end g/b rc=0"]
                rc, out, _ = self.run_check(self.good_tap(), console)
                self.assertEqual(1, rc, out)
                self.assertIn(f"FAIL std   kernel: {what} during g/b", out)

    def test_a_scan_area_kmemleak_could_not_allocate_is_no_report(self):
        console = ["rig: begin g/b",
                   "[ 1.0] kmemleak: Cannot allocate a scan area, scanning the full object",
                   "rig: end g/b rc=0"]
        rc, out, _ = self.run_check(self.good_tap(), console)
        self.assertEqual(0, rc, out)

    def warn_block(self, text):
        return ["[ 1.0] ------------[ cut here ]------------",
                f"[ 1.0] {text}",
                "[ 1.0] WARNING: CPU: 0 PID: 1 at kernel/x.c:1 f+0x1/0x2",
                "[ 1.0] Call Trace:",
                "[ 1.0] ---[ end trace 0000000000000000 ]---"]

    def test_expected_warning_passes(self):
        console = (["rig: begin g/b", "[ 1.0] rig: expect-warning bad flags"]
                   + self.warn_block("bad flags 0x2") + ["rig: end g/b rc=0"])
        rc, out, _ = self.run_check(self.good_tap(), console)
        self.assertEqual(0, rc, out)

    def test_second_or_other_warning_fails(self):
        for extra in ("bad flags 0x4", "something else"):
            with self.subTest(extra=extra):
                console = (["rig: begin g/b", "[ 1.0] rig: expect-warning bad flags"]
                           + self.warn_block("bad flags 0x2")
                           + self.warn_block(extra) + ["rig: end g/b rc=0"])
                rc, out, _ = self.run_check(self.good_tap(), console)
                self.assertEqual(1, rc, out)
                self.assertIn("FAIL std   kernel: kernel WARNING during g/b", out)

    def test_expected_warning_that_never_comes_fails(self):
        for end in (["rig: end g/b rc=0"], []):
            with self.subTest(end=end):
                console = ["rig: begin g/b", "[ 1.0] rig: expect-warning bad flags"] + end
                rc, out, _ = self.run_check(self.good_tap(), console)
                self.assertEqual(1, rc, out)
                self.assertIn("expected warning 'bad flags' did not come during g/b", out)

    def test_failed_freeze_fails(self):
        console = ["rig: begin g/b",
                   "[ 1.0] Freezing remaining freezable tasks failed after 20.005 seconds"
                   " (1 tasks refusing to freeze, wq_busy=0):", "rig: end g/b rc=0"]
        rc, out, _ = self.run_check(self.good_tap(), console)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   kernel: freezer failure during g/b", out)

    def test_debug_run_without_kmemleak_scan_fails(self):
        rc, out, _ = self.run_check(self.good_tap(), [], variant="debug")
        self.assertEqual(1, rc)
        self.assertIn("did not complete its kmemleak scan", out)
        rc, out, _ = self.run_check(self.good_tap(), ["rig: kmemleak done"], variant="debug")
        self.assertEqual(0, rc, out)

    def test_total_adds_runs(self):
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a"), os.path.join(d, "b")
            for path, text in ((a, "3 0 0\n"), (b, "2 1 1\n")):
                with open(path, "w") as f:
                    f.write(text)
            p = subprocess.run([sys.executable, CHECK, "--total", a, b],
                               capture_output=True, text=True)
        self.assertEqual(1, p.returncode)
        self.assertEqual("5 passed, 1 failed, 1 skipped", p.stdout.strip())


class CheckCluster(unittest.TestCase):
    """A cluster run: node 1's tests, every node's consoles and boots."""

    def node(self, n, done=True, extra=(), killed=False, leak_scan=False):
        """(console, tap) of one boot of node n."""
        console = [f"rig: boot 6.12 variant=std mode=test node={n}/3 uptime=1.0"]
        if n > 1:
            console.append("rig: agent: running /cluster/agent/%d/*.sh" % n)
        console += list(extra)
        tap = []
        if leak_scan:
            console.append("rig: kmemleak done in 6.1s")
        if done:
            console.append("rig: done")
            tap.append("rig: done")
        if killed:
            console += ["", f"rig: node {n} killed on request"]
        return console, tap

    def good(self):
        """Node 3 killed once and booted again: a good run."""
        return {(1, 1): (["rig: boot"], self.node_tap()),
                (2, 1): self.node(2),
                (3, 1): self.node(3, done=False, killed=True),
                (3, 2): self.node(3)}

    def node_tap(self):
        return tap_prog("c/a", ["ok", "ok"]) + ["rig: done"]

    def run_check(self, boots, variant="std"):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "c"))
            with open(os.path.join(d, "c", "list"), "w") as f:
                f.write("a\n")
            for (n, i), (console, tap) in boots.items():
                suffix = "" if i == 1 else f".{i}"
                with open(os.path.join(d, f"console-node{n}{suffix}.log"), "w") as f:
                    f.write("\n".join(console) + "\n")
                with open(os.path.join(d, f"tap-node{n}{suffix}.log"), "w") as f:
                    f.write("\r\n".join(tap) + "\r\n")
            p = subprocess.run(
                [sys.executable, CHECK, "--variant", variant, "--nodes", "3",
                 "--tap", os.path.join(d, "tap-node1.log"),
                 "--console", os.path.join(d, "console-node1.log"),
                 "--groups-dir", d, "--groups", "c",
                 "--counts", os.path.join(d, "counts")],
                capture_output=True, text=True)
            with open(os.path.join(d, "counts")) as f:
                counts = f.read().split()
        return p.returncode, p.stdout, [int(c) for c in counts]

    def test_all_nodes_done_and_a_killed_boot_pass(self):
        rc, out, counts = self.run_check(self.good())
        self.assertEqual(0, rc, out)
        self.assertEqual([2, 0, 0], counts)
        self.assertIn("std kernel, c on 3 nodes: 2 passed, 0 failed", out)

    def test_node_1_tests_are_judged(self):
        boots = self.good()
        boots[1, 1] = (["rig: boot"],
                       tap_prog("c/a", ["ok", "not ok"]) + ["rig: done"])
        rc, out, counts = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   c/a.t2: failed", out)

    def test_kernel_report_on_another_node_fails_and_names_it(self):
        boots = self.good()
        boots[2, 1] = self.node(2, extra=[
            "[ 3.0] BUG: KASAN: slab-use-after-free in f+0x1/0x2"])
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   kernel: KASAN report on node 2 during its agent's commands", out)

    def test_kernel_report_in_a_killed_boot_fails(self):
        boots = self.good()
        boots[3, 1] = self.node(3, done=False, killed=True, extra=[
            "[ 3.0] WARNING: CPU: 0 PID: 1 at fs/x.c:1 f+0x1/0x2"])
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   kernel: kernel WARNING on node 3, boot 1 during", out)

    def test_a_node_that_did_not_finish_fails(self):
        boots = self.good()
        boots[2, 1] = self.node(2, done=False)
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   node 2: did not finish", out)
        self.assertIn("last 50 lines of", out)

    def test_the_last_boot_of_a_restarted_node_must_finish(self):
        boots = self.good()
        boots[3, 2] = self.node(3, done=False)
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   node 3, boot 2: did not finish", out)

    def test_a_boot_that_ended_without_a_kill_request_fails(self):
        """The runner killed nothing: node 3's first boot died on its own."""
        boots = self.good()
        boots[3, 1] = self.node(3, done=False)
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   node 3, boot 1: did not finish", out)

    def test_a_node_that_never_booted_fails(self):
        boots = self.good()
        del boots[2, 1]
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   node 2: never booted", out)

    def test_a_node_killed_at_the_timeout_fails(self):
        boots = self.good()
        console, tap = self.node(2, done=False)
        boots[2, 1] = (console + ["rig: QEMU killed after 600s timeout"], tap)
        rc, out, _ = self.run_check(boots)
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL std   node 2: hung: QEMU killed at the timeout", out)

    def test_debug_run_needs_every_finished_boots_leak_scan(self):
        boots = {(1, 1): (["rig: kmemleak done in 6.0s"], self.node_tap()),
                 (2, 1): self.node(2, leak_scan=True),
                 (3, 1): self.node(3, done=False, killed=True),
                 (3, 2): self.node(3, leak_scan=True)}
        rc, out, _ = self.run_check(boots, variant="debug")
        self.assertEqual(0, rc, out)
        boots[3, 2] = self.node(3)
        rc, out, _ = self.run_check(boots, variant="debug")
        self.assertEqual(1, rc, out)
        self.assertIn("FAIL debug kernel: node 3, boot 2's debug boot did not complete"
                      " its kmemleak scan", out)


if __name__ == "__main__":
    unittest.main()
