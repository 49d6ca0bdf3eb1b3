#!/usr/bin/env python3
"""The AIO bash sessions of the emulator (--aio) over real HTTP on
127.0.0.1: POST /v1/bash/sessions/create, commands run in a created
session (sync and async_mode), /v1/bash/output, /write and /kill reaching
the session's commands, GET /v1/bash/sessions and the session's close;
every request and answer validated against the schemas transcribed in
aio-schemas-bash.json.  One emulator and one sandbox for every case.

Run by `make check` with EMU_BIN and SBX_TEST_SRCDIR set (tests/local.mk);
needs Debian's python3-jsonschema.
"""

import json
import os
import sys
import time
import unittest
import urllib.error
import urllib.request

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aio_routes import DEADLINE_S, SRCDIR, Emulator  # noqa: E402
from test_aio_shell import AioShell, destroy  # noqa: E402
SCHEMAS = json.load(open(os.path.join(SRCDIR, "tests", "emulator", "aio-schemas-bash.json")))


def validate(fragment, value):
    jsonschema.Draft7Validator(dict(fragment, definitions=SCHEMAS["definitions"])).validate(
        value)


class AioBashSessions(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.emu = Emulator()
        cls.url = cls.emu.create("bash1")
        # Absolute paths on the local backend are inside the sandbox.
        probe = AioBashSessions("run")
        cls.home = probe.create(session_id="probe")["working_dir"]
        probe.run_in("probe", "mkdir -p a b")
        probe.ok("POST", "/v1/bash/sessions/probe/close")
        cls.a, cls.b = cls.home + "/a", cls.home + "/b"

    @classmethod
    def tearDownClass(cls):
        destroy(cls.emu, "bash1")
        cls.emu.stop()

    # Requests and answers checked against this file's schemas.
    schemas = SCHEMAS
    call, ok = AioShell.call, AioShell.ok

    @staticmethod
    def spec_key(method, route):
        if route.startswith("/v1/bash/sessions/") and route.endswith("/close"):
            return "POST /v1/bash/sessions/{session_id}/close"
        return method + " " + route

    def failed(self, route, body):
        return AioShell.failed(self, "POST", route, body)

    def not_found(self, route, body=None):
        return AioShell.not_found(self, "POST", route, body)

    def create(self, **fields):
        return self.ok("POST", "/v1/bash/sessions/create", fields)

    def run_in(self, sid, command, **fields):
        return self.ok("POST", "/v1/bash/exec", dict(fields, session_id=sid, command=command))

    def listed(self, sid):
        found = [s for s in self.ok("GET", "/v1/bash/sessions") if s["session_id"] == sid]
        self.assertLessEqual(len(found), 1)
        return found[0] if found else None

    def follow(self, sid, command_id=None):
        """Long-poll the session's (or its command's) output to the end."""
        body = {"session_id": sid, "wait": True, "wait_timeout": 5}
        if command_id is not None:
            body["command_id"] = command_id
        out, deadline = "", time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            data = self.ok("POST", "/v1/bash/output", body)
            out += data["stdout"]
            body["offset"], body["stderr_offset"] = data["offset"], data["stderr_offset"]
            if data["command"] is not None and data["command"]["status"] != "running":
                return out, data
        self.fail("the command did not end within %d s" % DEADLINE_S)

    def test_a_session_is_created_once_in_its_directory(self):
        made = self.create(session_id="made-1", exec_dir=self.a)
        self.assertEqual((made["session_id"], made["status"], made["working_dir"],
                          made["command_count"], made["current_command"]),
                         ("made-1", "ready", self.a, 0, None))
        again = self.create(session_id="made-1", exec_dir=self.b)
        self.assertEqual(again, made)
        fresh = self.create()
        self.assertRegex(fresh["session_id"], r"^bash-[0-9a-f]{32}$")
        self.assertEqual(fresh["working_dir"], self.home)
        self.assertEqual(self.listed("made-1"), made)
        self.ok("POST", "/v1/bash/sessions/made-1/close")
        self.ok("POST", "/v1/bash/sessions/%s/close" % fresh["session_id"])
        self.assertIsNone(self.listed("made-1"))

    def test_commands_run_in_the_sessions_directory_which_exec_dir_moves(self):
        self.create(session_id="dirs", exec_dir=self.a)
        ran = self.run_in("dirs", "pwd; cd ..; export GONE=1")
        self.assertEqual((ran["session_id"], ran["stdout"], ran["exit_code"]),
                         ("dirs", self.a + "\n", 0))
        self.assertEqual(self.run_in("dirs", "pwd", exec_dir=self.b)["stdout"], self.b + "\n")
        # cd and export do not carry over; exec_dir does (the AIO's rule).
        self.assertEqual(self.run_in("dirs", "pwd; echo \"[$GONE]\"")["stdout"],
                         self.b + "\n[]\n")
        info = self.listed("dirs")
        self.assertEqual((info["working_dir"], info["command_count"]), (self.b, 3))
        self.ok("POST", "/v1/bash/sessions/dirs/close")

    def test_async_commands_of_a_session_are_read_written_and_killed(self):
        self.create(session_id="live", exec_dir=self.a)
        first = self.run_in("live", "pwd; echo one", async_mode=True)
        self.assertEqual(first["session_id"], "live")
        self.assertNotEqual(first["command_id"], "live")
        out, end = self.follow("live", first["command_id"])
        self.assertEqual((out, end["session_id"], end["command"]["exit_code"]),
                         (self.a + "\none\n", "live", 0))
        second = self.run_in("live", "read -r line; echo \"got $line\"; sleep 60",
                             async_mode=True)
        self.assertEqual(self.listed("live")["current_command"],
                         "read -r line; echo \"got $line\"; sleep 60")
        # Without command_id: the session's latest command.
        self.ok("POST", "/v1/bash/write", {"session_id": "live", "input": "hello\n"})
        body = {"session_id": "live", "wait": True, "wait_timeout": 5}
        deadline, got = time.monotonic() + DEADLINE_S, ""
        while "got hello\n" not in got and time.monotonic() < deadline:
            data = self.ok("POST", "/v1/bash/output", dict(body, offset=len(got)))
            got += data["stdout"]
            self.assertEqual(data["command"]["command_id"], second["command_id"])
        self.assertEqual(got, "got hello\n")
        self.ok("POST", "/v1/bash/kill", {"session_id": "live", "signal": "SIGKILL"})
        out, end = self.follow("live")
        self.assertEqual((end["command"]["status"], end["command"]["exit_code"]),
                         ("killed", -9))
        # The first command is still the session's, by its id.
        self.assertEqual(self.follow("live", first["command_id"])[0], self.a + "\none\n")
        self.assertEqual(self.listed("live")["command_count"], 2)
        self.ok("POST", "/v1/bash/sessions/live/close")
        self.assertEqual(self.not_found("/v1/bash/output",
                                        {"session_id": first["command_id"]}),
                         "Session '%s' not found" % first["command_id"])

    def test_a_command_of_another_session_or_none_is_not_found(self):
        self.create(session_id="mine")
        self.create(session_id="theirs")
        theirs = self.run_in("theirs", "true", async_mode=True)
        self.assertEqual(self.not_found("/v1/bash/output", {"session_id": "mine"}),
                         "Session 'mine' has run no command")
        self.assertEqual(self.not_found("/v1/bash/kill", {"session_id": "mine"}),
                         "Session 'mine' has run no command")
        self.assertEqual(
            self.not_found("/v1/bash/write", {"session_id": "mine", "input": "x",
                                              "command_id": theirs["command_id"]}),
            "Command '%s' not found in session 'mine'" % theirs["command_id"])
        self.assertEqual(
            self.not_found("/v1/bash/output", {"session_id": "mine",
                                               "command_id": "no-such-command"}),
            "Command 'no-such-command' not found in session 'mine'")
        self.ok("POST", "/v1/bash/sessions/mine/close")
        self.ok("POST", "/v1/bash/sessions/theirs/close")

    def test_closing_a_session_ends_its_running_command(self):
        self.create(session_id="ending")
        running = self.run_in("ending", "sleep 60", async_mode=True)
        self.ok("POST", "/v1/bash/sessions/ending/close")
        listed = [s["session_id"] for s in self.ok("GET", "/v1/bash/sessions")]
        self.assertNotIn("ending", listed)
        self.assertNotIn(running["command_id"], listed)
        self.not_found("/v1/bash/sessions/ending/close")

    def test_bad_creates_are_refused_by_name(self):
        refused = self.failed("/v1/bash/sessions/create",
                              {"session_id": "snap", "snapshot_path": "/x.sh"})
        self.assertIn("snapshot_path is not supported", refused)
        self.assertIn("/bin/sh, which cannot source a bash snapshot", refused)
        self.assertIsNone(self.listed("snap"))
        self.assertIn("session_id must be 1 to 128 characters",
                      self.failed("/v1/bash/sessions/create", {"session_id": "a b"}))
        self.assertIn("exec_dir must be an absolute path",
                      self.failed("/v1/bash/sessions/create", {"exec_dir": "tmp"}))
        # A body the schema refuses (so not sent through call()).
        req = urllib.request.Request(self.url + "/v1/bash/sessions/create",
                                     data=b'{"session_id": 5}',
                                     headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(req, timeout=DEADLINE_S)
        self.assertEqual(refused.exception.code, 422)
        value = json.load(refused.exception)
        validate(SCHEMAS["definitions"]["HTTPValidationError"], value)
        self.assertEqual(value["detail"][0]["loc"], ["body", "session_id"])

    def test_a_sandbox_holds_at_most_64_sessions(self):
        ids = ["many-%d" % i for i in range(64)]
        for sid in ids:
            self.create(session_id=sid)
        self.assertIn("64 bash sessions already",
                      self.failed("/v1/bash/sessions/create", {"session_id": "one-more"}))
        for sid in ids:
            self.ok("POST", "/v1/bash/sessions/%s/close" % sid)


if __name__ == "__main__":
    unittest.main(verbosity=2)
