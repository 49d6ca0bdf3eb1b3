#!/usr/bin/env python3
"""A sandbox deleted through the emulator's provisioner route takes its
AIO state with it: a command it started in the background and its shell
session end at the delete, not when the emulator stops; a sandbox made
again under the id starts without them.

Run by `make check` with EMU_BIN and SBX_TEST_SRCDIR set; needs Debian's
python3-jsonschema.
"""

import os
import sys
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_aio_routes as base  # noqa: E402

base.add_schemas("aio-schemas-shell.json")


def running(marker):
    """Whether a process of this machine has `marker` in its command
    line (the sandbox's pids are its own namespace's)."""
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if marker.encode() in f.read():
                    with open("/proc/%s/stat" % pid) as st:
                        if st.read().split(")")[-1].split()[0] != "Z":
                            return True
        except OSError:
            pass
    return False


class AioGone(unittest.TestCase):
    def test_a_deleted_sandbox_ends_its_commands_and_sessions(self):
        emu = base.Emulator("--aio-api-key", base.KEY)
        try:
            routes = base.AioRoutes("call")
            routes.url = emu.create("gone1")
            marker = "%d.%d" % (300 + os.getpid() % 1000, os.getpid())
            routes.start("exec sleep " + marker)
            made = routes.call("POST", "/v1/shell/sessions/create", {})
            self.assertEqual(made.status, 200, made.body)
            deadline = time.monotonic() + base.DEADLINE_S
            while not running(marker) and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertTrue(running(marker))
            req = urllib.request.Request(emu.base + "/api/sandboxes/gone1", method="DELETE")
            with urllib.request.urlopen(req, timeout=base.DEADLINE_S) as answer:
                self.assertEqual(answer.status, 200)
            while running(marker) and time.monotonic() < deadline:
                time.sleep(0.01)
            self.assertFalse(running(marker), "the background command outlived its sandbox")
            routes.url = emu.create("gone1")
            sessions = routes.call("GET", "/v1/shell/sessions")
            self.assertEqual(sessions.status, 200, sessions.body)
            self.assertEqual(sessions.json()["data"]["sessions"], {}, sessions.body)
        finally:
            emu.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
