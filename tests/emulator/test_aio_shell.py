#!/usr/bin/env python3
"""The AIO shell session routes (/v1/shell/*) of sbx-provisioner-emu --aio
over real HTTP on 127.0.0.1, its sandboxes on the local backend: every
request and answer validated against the AIO OpenAPI schemas transcribed
in aio-schemas-shell.json.  One emulator and one sandbox serve all cases
(each case names its own sessions); one more sandbox shows that sessions
belong to theirs; sbx-provisiond over the local backend shows a session
living on across its restart.  Started by `make check` as
test_aio_routes.py is (whose server helpers it uses).
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aio_routes import DEADLINE_S, DETAIL_SCHEMA, SRCDIR, Emulator, listening  # noqa: E402
SCHEMAS = json.load(open(os.path.join(SRCDIR, "tests", "emulator", "aio-schemas-shell.json")))


def validate(fragment, value):
    jsonschema.Draft7Validator(dict(fragment, definitions=SCHEMAS["definitions"])).validate(
        value)


def spec_route(method, route):
    if method == "DELETE":
        route = re.sub(r"^/v1/shell/sessions/[^/]+$", "/v1/shell/sessions/{session_id}", route)
    return method + " " + route


def destroy(server, sandbox_id):
    req = urllib.request.Request(server.base + "/api/sandboxes/" + sandbox_id,
                                 method="DELETE")
    urllib.request.urlopen(req, timeout=DEADLINE_S).close()


class AioShell(unittest.TestCase):
    start = Emulator     # the server the cases run on
    schemas = SCHEMAS    # what call() checks requests and answers against
    spec_key = staticmethod(spec_route)

    @classmethod
    def setUpClass(cls):
        cls.emu = cls.start()
        cls.url = cls.emu.create("shell1")

    @classmethod
    def tearDownClass(cls):
        destroy(cls.emu, "shell1")
        cls.emu.stop()

    def call(self, method, route, body=None, url=None):
        """Send a request (valid for its schema) and check the answer
        against the route's answer schemas: (status, JSON)."""
        key = self.spec_key(method, route)
        spec = self.schemas["routes"][key]
        data = None
        headers = {}
        if body is not None:
            jsonschema.Draft7Validator(dict(spec["request"], definitions=self.schemas[
                "definitions"])).validate(body)
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request((url or self.url) + route, method=method, data=data,
                                     headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE_S) as answer:
                status, ctype, text = answer.status, answer.headers.get("Content-Type"), \
                    answer.read()
        except urllib.error.HTTPError as error:
            status, ctype, text = error.code, error.headers.get("Content-Type"), error.read()
        self.assertEqual(ctype, "application/json")
        value = json.loads(text)
        documented = spec["responses"].get(str(status))
        jsonschema.Draft7Validator(dict(documented["schema"] if documented else DETAIL_SCHEMA,
                                        definitions=self.schemas["definitions"])).validate(value)
        return status, value

    def ok(self, method, route, body=None, url=None):
        status, value = self.call(method, route, body, url)
        self.assertEqual(status, 200, value)
        self.assertTrue(value["success"], value)
        return value["data"]

    def failed(self, method, route, body=None):
        """A 200 with success false: its message."""
        status, value = self.call(method, route, body)
        self.assertEqual(status, 200, value)
        self.assertFalse(value["success"], value)
        return value["message"]

    def not_found(self, method, route, body=None, url=None):
        status, value = self.call(method, route, body, url)
        self.assertEqual(status, 404, value)
        return value["detail"]

    def sh(self, command, url=None, **fields):
        return self.ok("POST", "/v1/shell/exec", dict(fields, command=command), url)

    def wait_status(self, sid, wanted):
        """Wait (bounded) until the session's command has status `wanted`."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            data = self.ok("POST", "/v1/shell/wait", {"id": sid, "seconds": 1})
            if data["status"] == wanted or time.monotonic() > deadline:
                return data["status"]

    # ------------------------------------------------------------ the default session

    def test_the_default_session_keeps_cd_and_export(self):
        home = self.sh("pwd")["output"].strip()
        self.sh("mkdir -p keep && cd keep && export KEPT=yes")
        data = self.sh('pwd; echo "$KEPT"')
        self.assertEqual(data["output"], home + "/keep\nyes\n")
        self.assertEqual((data["status"], data["exit_code"]), ("completed", 0))
        self.assertEqual(data["session_id"], self.sh("true")["session_id"])
        self.sh("cd " + home)

    def test_exec_dir_holds_for_one_command_and_strict_refuses_a_missing_one(self):
        home = self.sh("pwd")["output"].strip()
        self.sh("mkdir -p one")
        self.assertEqual(self.sh("pwd", exec_dir=home + "/one")["output"], home + "/one\n")
        self.assertEqual(self.sh("pwd", exec_dir="/nonexistent")["output"], home + "\n")
        self.assertIn("exec_dir", self.failed("POST", "/v1/shell/exec", {
            "command": "pwd", "exec_dir": "/nonexistent", "strict": True}))

    def test_statuses_output_and_exit_codes(self):
        data = self.sh("echo one; echo two >&2; echo three; false")
        self.assertEqual((data["output"], data["exit_code"]), ("one\ntwo\nthree\n", 1))
        self.assertIn("nosuchprog", self.sh("nosuchprog")["output"])
        # a syntax error is the command's, in its output; the shell stays
        data = self.sh("if then")
        self.assertEqual(data["exit_code"], 2)
        self.assertTrue(data["output"])
        # exit ends the shell: its code is the command's, a new shell follows
        self.assertEqual(self.sh("exit 3")["exit_code"], 3)
        data = self.sh("kill -9 $$")
        self.assertEqual((data["status"], data.get("exit_code")), ("terminated", None))
        self.assertEqual(self.sh("echo back")["output"], "back\n")
        start = time.monotonic()
        data = self.sh("echo started; sleep 60", hard_timeout=0.5)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual((data["status"], data["output"]), ("hard_timeout", "started\n"))
        command = "head -c 40000 /dev/zero | tr '\\0' x"
        self.assertEqual(self.sh(command)["output"].count("x"), 30000)
        self.assertEqual(len(self.sh(command, truncate=False)["output"]), 40000)

    # ------------------------------------------------------------ named sessions

    def test_sessions_are_created_listed_used_and_ended(self):
        self.ok("DELETE", "/v1/shell/sessions")
        home = self.sh("pwd")["output"].strip()
        self.sh("mkdir -p s1dir")
        made = self.ok("POST", "/v1/shell/sessions/create",
                       {"id": "s1", "exec_dir": home + "/s1dir"})
        self.assertEqual(made, {"session_id": "s1", "working_dir": home + "/s1dir"})
        # the same id again: the same session
        self.assertEqual(self.ok("POST", "/v1/shell/sessions/create", {"id": "s1"}), made)
        fresh = self.ok("POST", "/v1/shell/sessions/create", {})
        self.assertTrue(fresh["session_id"])
        self.assertEqual(fresh["working_dir"], home)
        self.sh("export IN_S1=1", id="s1")
        self.assertEqual(self.sh('echo "${IN_S1:-no}"', id="s1")["output"], "1\n")
        self.assertEqual(self.sh('echo "${IN_S1:-no}"')["output"], "no\n")
        sessions = self.ok("GET", "/v1/shell/sessions")["sessions"]
        self.assertEqual(set(sessions), {"s1", fresh["session_id"], "default"})
        self.assertEqual(sessions["s1"]["working_dir"], home + "/s1dir")
        self.assertIsNone(self.ok("DELETE", "/v1/shell/sessions/s1"))
        self.assertIn("'s1' not found", self.not_found("DELETE", "/v1/shell/sessions/s1"))
        self.assertIn("'s1' not found",
                      self.not_found("POST", "/v1/shell/exec", {"command": "true", "id": "s1"}))
        for route, body in (("/v1/shell/view", {"id": "s1"}),
                            ("/v1/shell/wait", {"id": "s1"}),
                            ("/v1/shell/kill", {"id": "s1"}),
                            ("/v1/shell/write", {"id": "s1", "input": "x",
                                                 "press_enter": True})):
            self.not_found("POST", route, body)
        self.ok("DELETE", "/v1/shell/sessions")
        self.assertEqual(self.ok("GET", "/v1/shell/sessions")["sessions"], {})

    def test_a_sandbox_holds_at_most_16_sessions(self):
        self.ok("DELETE", "/v1/shell/sessions")
        for i in range(16):
            self.ok("POST", "/v1/shell/sessions/create", {"id": "m%d" % i})
        self.assertIn("16", self.failed("POST", "/v1/shell/sessions/create", {"id": "m16"}))
        self.ok("DELETE", "/v1/shell/sessions/m0")
        self.ok("POST", "/v1/shell/sessions/create", {"id": "m16"})
        self.ok("DELETE", "/v1/shell/sessions")

    def test_bad_bodies_are_422(self):
        for route, body in (("/v1/shell/exec", {}), ("/v1/shell/view", {}),
                            ("/v1/shell/write", {"id": "x", "input": "y"}),
                            ("/v1/shell/wait", {"id": "x", "seconds": 1.5}),
                            ("/v1/shell/sessions/create", {"id": None})):
            req = urllib.request.Request(self.url + route, method="POST",
                                         data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with self.assertRaises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(req, timeout=DEADLINE_S)
            self.assertEqual(caught.exception.code, 422, route)
            validate({"$ref": "#/definitions/HTTPValidationError"},
                     json.loads(caught.exception.read()))
            caught.exception.close()

    # ------------------------------------------------------------ background commands

    def test_a_background_command_is_viewed_written_to_and_killed(self):
        self.ok("POST", "/v1/shell/sessions/create", {"id": "bg"})
        self.sh("export GREETING=hello", id="bg")
        data = self.sh('echo "$GREETING"; read line; echo "got $line"; sleep 60', id="bg",
                       async_mode=True)
        self.assertEqual((data["status"], data["output"], data.get("exit_code")),
                         ("running", None, None))
        self.assertIn("running",
                      self.failed("POST", "/v1/shell/exec",
                                  {"command": "true", "id": "bg", "async_mode": True}))
        self.assertEqual(self.ok("POST", "/v1/shell/write",
                                 {"id": "bg", "input": "abc", "press_enter": True}),
                         {"status": "running"})
        deadline = time.monotonic() + DEADLINE_S
        while True:
            view = self.ok("POST", "/v1/shell/view", {"id": "bg"})
            if "got abc" in view["output"] or time.monotonic() > deadline:
                break
        self.assertEqual((view["output"], view["status"]), ("hello\ngot abc\n", "running"))
        # the session's own shell is free meanwhile
        self.assertEqual(self.sh("echo free", id="bg")["output"], "free\n")
        self.assertEqual(self.ok("POST", "/v1/shell/wait", {"id": "bg", "seconds": 0}),
                         {"status": "running"})
        killed = self.ok("POST", "/v1/shell/kill", {"id": "bg"})
        self.assertEqual(killed, {"status": "terminated", "exit_code": None,
                                  "returncode": None})
        self.assertEqual(self.wait_status("bg", "terminated"), "terminated")
        self.sh("sh -c 'exit 4'", id="bg", async_mode=True)
        self.assertEqual(self.wait_status("bg", "completed"), "completed")
        # a kill of an ended command says how it ended
        self.assertEqual(self.ok("POST", "/v1/shell/kill", {"id": "bg"}),
                         {"status": "completed", "exit_code": 4, "returncode": 4})
        self.assertIn("no command is running", self.failed(
            "POST", "/v1/shell/write", {"id": "bg", "input": "x", "press_enter": False}))
        self.ok("DELETE", "/v1/shell/sessions/bg")

    def test_a_client_that_goes_away_mid_wait_frees_its_worker(self):
        self.ok("POST", "/v1/shell/sessions/create", {"id": "gone"})
        self.sh("sleep 60", id="gone", async_mode=True)
        host, port = urllib.parse.urlsplit(self.url).netloc.split(":")
        path = urllib.parse.urlsplit(self.url).path + "/v1/shell/wait"
        body = json.dumps({"id": "gone", "seconds": 50}).encode()
        for _ in range(8):   # more than the server's request threads
            with socket.create_connection((host, int(port)), timeout=DEADLINE_S) as s:
                s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (path.encode(), len(body), body))
        start = time.monotonic()
        self.assertEqual(self.sh("echo alive")["output"], "alive\n")
        self.assertLess(time.monotonic() - start, 30)
        self.ok("DELETE", "/v1/shell/sessions/gone")

    # ------------------------------------------------------------ ownership and restarts

    def test_sessions_belong_to_their_sandbox(self):
        other = self.emu.create("shell2")
        self.ok("POST", "/v1/shell/sessions/create", {"id": "mine"})
        self.not_found("POST", "/v1/shell/exec", {"command": "true", "id": "mine"}, url=other)
        self.not_found("DELETE", "/v1/shell/sessions/mine", url=other)
        self.assertEqual(self.ok("GET", "/v1/shell/sessions", url=other)["sessions"], {})
        self.ok("DELETE", "/v1/shell/sessions", url=other)
        self.sh("true", id="mine")
        destroy(self.emu, "shell2")
        self.ok("DELETE", "/v1/shell/sessions/mine")


class Provisiond:
    """sbx-provisiond over the local backend on a free port of 127.0.0.1,
    its records and sandboxes in a private directory."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="sbx-aio-shell-")
        self.run()

    def run(self):
        self.proc, self.base = listening.start(
            [os.path.join(os.environ["SBX_TEST_BUILDDIR"], "tools", "provisiond",
                          "sbx-provisiond"),
             "--backend", "local", "--listen", "127.0.0.1:0",
             "--set", "state_dir=" + os.path.join(self.dir, "local"),
             "--state-dir", os.path.join(self.dir, "owners")], DEADLINE_S, subprocess.DEVNULL)

    def end(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(DEADLINE_S)
        self.proc.stdout.close()

    def restart(self):
        self.end()
        self.run()

    def stop(self):
        self.end()
        shutil.rmtree(self.dir, ignore_errors=True)

    create = Emulator.create


class ProvisiondRestart(AioShell):
    """A session lives on when sbx-provisiond restarts (the local backend's
    processes do): found by its id, with its directory and variables."""

    start = Provisiond

    def test_a_session_outlives_a_restart(self):
        self.ok("POST", "/v1/shell/sessions/create", {"id": "mine"})
        self.sh("cd /tmp && export LIVES=on", id="mine")
        self.sh("cd /tmp")
        self.sh("sleep 60", id="mine", async_mode=True)
        self.emu.restart()
        type(self).url = self.emu.base + urllib.parse.urlsplit(self.url).path
        self.assertEqual(set(self.ok("GET", "/v1/shell/sessions")["sessions"]),
                         {"mine", "default"})
        self.assertEqual(self.sh('pwd; echo "$LIVES"', id="mine")["output"], "/tmp\non\n")
        self.assertEqual(self.sh("pwd")["output"], "/tmp\n")
        # its background command too
        self.assertEqual(self.ok("POST", "/v1/shell/kill", {"id": "mine"})["status"],
                         "terminated")
        self.ok("DELETE", "/v1/shell/sessions")


def load_tests(loader, tests, pattern):
    """Every case on the emulator; on sbx-provisiond, the restart only
    (the routes are the same code)."""
    suite = unittest.TestSuite()
    suite.addTests(loader.loadTestsFromTestCase(AioShell))
    suite.addTest(ProvisiondRestart("test_a_session_outlives_a_restart"))
    return suite


if __name__ == "__main__":
    unittest.main(verbosity=2)
