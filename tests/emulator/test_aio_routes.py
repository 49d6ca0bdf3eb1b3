#!/usr/bin/env python3
"""The emulator's AIO sandbox routes (sbx-provisioner-emu --aio) over real
HTTP on 127.0.0.1: every answer is validated against the AIO OpenAPI
schemas transcribed in aio-schemas.json, every request this test means to
be valid against the request schemas (and the invalid ones must fail
them), and the emulator's --aio-request-log is read back and checked the
same way.  Commands and files are real: they run in the emulator's local
sandboxes.

Run by `make check` with EMU_BIN and SBX_TEST_SRCDIR set (tests/local.mk);
needs Debian's python3-jsonschema.
"""

import base64
import email.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("SBX_TEST_SRCDIR", os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "support"))
import listening  # noqa: E402
SCHEMAS = json.load(open(os.path.join(SRCDIR, "tests", "emulator", "aio-schemas.json")))


def add_schemas(name):
    """Load the schemas transcribed in tests/emulator/`name` into SCHEMAS,
    so that the shared helpers validate those routes too; return them."""
    more = json.load(open(os.path.join(SRCDIR, "tests", "emulator", name)))
    SCHEMAS["routes"].update(more["routes"])
    SCHEMAS["definitions"].update(more["definitions"])
    return more

KEY = "aio-test-key"
# Generous: a loaded machine must not fail a correct run.
DEADLINE_S = 60

# The answers the AIO document has no schema for (a route that does not
# exist, a bad key, a download's failure status): sbx's own shape.
DETAIL_SCHEMA = {"type": "object", "required": ["detail"],
                 "properties": {"detail": {"type": "string"}}}


def schema(fragment):
    """`fragment` resolvable against the transcribed definitions."""
    return dict(fragment, definitions=SCHEMAS["definitions"])


def is_valid(fragment, value):
    return jsonschema.Draft7Validator(schema(fragment)).is_valid(value)


def validate(fragment, value):
    jsonschema.Draft7Validator(schema(fragment)).validate(value)


def multipart_fields(content_type, body):
    """The form fields of a multipart body as the upload schema sees
    them: name -> str (a file's bytes as latin-1 text)."""
    message = email.parser.BytesParser().parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
    fields = {}
    for part in message.get_payload() if message.is_multipart() else []:
        name = part.get_param("name", header="content-disposition")
        fields[name] = part.get_payload(decode=True).decode("latin-1")
    return fields


def spec_route(route):
    """The route as the schemas name it (a path's id as its parameter)."""
    return re.sub(r"^/v1/bash/sessions/[^/]+/close$", "/v1/bash/sessions/{session_id}/close",
                  route)


def request_value(route, content_type, body, query):
    """What a request carries, as the route's request schema reads it."""
    spec = SCHEMAS["routes"][route]
    if "query" in spec:
        return spec["query"], query
    if spec.get("request_content_type") == "multipart/form-data":
        return spec["request"], multipart_fields(content_type or "", body)
    if "request" not in spec:
        return None, None
    try:
        return spec["request"], json.loads(body)
    except ValueError:
        return spec["request"], body.decode("latin-1")


class Emulator:
    """A running sbx-provisioner-emu with --aio; stopped with SIGTERM."""

    def __init__(self, *args, aio=True):
        self.dir = tempfile.mkdtemp(prefix="sbx-aio-test-")
        self.log = os.path.join(self.dir, "aio-requests.jsonl")
        aio_args = ["--aio", "--aio-request-log", self.log] if aio else []
        try:
            self.proc, self.base = listening.start(
                [os.environ["EMU_BIN"], "--state-dir", os.path.join(self.dir, "state")] +
                aio_args + list(args), DEADLINE_S, subprocess.PIPE)
        except RuntimeError:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(DEADLINE_S)
        self.proc.stdout.close()
        self.proc.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def create(self, sandbox_id):
        """Create a sandbox through the provisioner route: its sandbox_url."""
        req = urllib.request.Request(self.base + "/api/sandboxes", method="POST",
                                     data=json.dumps({"sandbox_id": sandbox_id}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=DEADLINE_S) as answer:
            return json.load(answer)["sandbox_url"]


class Answer:
    def __init__(self, status, content_type, body):
        self.status = status
        self.content_type = content_type
        self.body = body

    def json(self):
        return json.loads(self.body)


class AioRoutes(unittest.TestCase):
    emu = None
    url = None
    invalid_sent = 0   # requests this test sent invalid on purpose

    @classmethod
    def setUpClass(cls):
        cls.emu = Emulator("--aio-api-key", KEY)
        cls.url = cls.emu.create("aio1")

    @classmethod
    def tearDownClass(cls):
        cls.emu.stop()

    # ------------------------------------------------------------ helpers

    def call(self, method, route, body=None, query=None, content_type=None, key=KEY,
             invalid=False, url=None, headers=None):
        """Send a request; check it against the request schema (valid, or
        invalid when `invalid`) and the answer against the route's answer
        schemas.  `body` is a JSON value, or bytes sent as they are."""
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            content_type = content_type or "application/json"
        full = (url or self.url) + route
        if query is not None:
            full += "?" + urllib.parse.urlencode(query)
        sent_headers = dict(headers or {})
        if content_type is not None:
            sent_headers["Content-Type"] = content_type
        if key is not None:
            sent_headers["X-AIO-API-Key"] = key
        spec_key = method + " " + spec_route(route)
        if spec_key in SCHEMAS["routes"]:
            fragment, value = request_value(spec_key, content_type, body or b"", query or {})
            if fragment is not None:
                self.assertEqual(is_valid(fragment, value), not invalid,
                                 "request %s %r against its schema" % (spec_key, value))
        if invalid:
            type(self).invalid_sent += 1
        req = urllib.request.Request(full, method=method, data=body, headers=sent_headers)
        try:
            with urllib.request.urlopen(req, timeout=DEADLINE_S) as answer:
                result = Answer(answer.status, answer.headers.get("Content-Type"), answer.read())
        except urllib.error.HTTPError as error:
            result = Answer(error.code, error.headers.get("Content-Type"), error.read())
        self.check_answer(spec_key, result)
        return result

    def check_answer(self, spec_key, answer):
        spec = SCHEMAS["routes"].get(spec_key)
        documented = spec["responses"].get(str(answer.status)) if spec else None
        if documented is not None and documented["schema"] is not None:
            self.assertEqual(answer.content_type, documented["content_type"])
            if documented["content_type"] == "application/json":
                validate(documented["schema"], answer.json())
            return
        self.assertEqual(answer.content_type, "application/json",
                         "%s answered %d" % (spec_key, answer.status))
        validate(DETAIL_SCHEMA, answer.json())

    def ok(self, method, route, body=None, **kw):
        """A request answered 200 with success true: its data."""
        answer = self.call(method, route, body, **kw)
        self.assertEqual(answer.status, 200, answer.body)
        envelope = answer.json()
        self.assertTrue(envelope["success"], envelope)
        return envelope["data"]

    def exec(self, command, **fields):
        return self.ok("POST", "/v1/bash/exec", dict(fields, command=command))

    def file_error(self, route, body, error_type, errno_name=None):
        """A handled file failure: 200, success false, a FileOperationError."""
        answer = self.call("POST", route, body)
        self.assertEqual(answer.status, 200, answer.body)
        envelope = answer.json()
        self.assertFalse(envelope["success"])
        validate({"$ref": "#/definitions/FileOperationError"}, envelope["data"])
        self.assertEqual(envelope["data"]["error_type"], error_type, envelope)
        self.assertEqual(envelope["data"]["errno_name"], errno_name, envelope)
        return envelope["data"]

    def unprocessable(self, route, body, loc, content_type=None, schema_invalid=True):
        """A 422 whose errors include one at `loc` (a "json_invalid" one
        when `loc` is None).  The request is invalid for the schema too
        unless `schema_invalid` is false."""
        answer = self.call("POST", route, body, content_type=content_type,
                           invalid=schema_invalid)
        self.assertEqual(answer.status, 422, answer.body)
        errors = answer.json()["detail"]
        if loc is None:
            self.assertEqual([e["type"] for e in errors], ["json_invalid"])
            self.assertEqual(errors[0]["loc"][0], "body")
        else:
            self.assertIn(loc, [e["loc"] for e in errors], answer.body)

    def upload(self, data, path=None, filename="blob.bin", invalid=False):
        boundary = "sbx-test-boundary-7f3a"
        parts = []
        if data is not None:
            parts.append(b'--%s\r\nContent-Disposition: form-data; name="file"; '
                         b'filename="%s"\r\nContent-Type: application/octet-stream\r\n\r\n'
                         % (boundary.encode(), filename.encode()) + data + b"\r\n")
        if path is not None:
            parts.append(b'--%s\r\nContent-Disposition: form-data; name="path"\r\n\r\n%s\r\n'
                         % (boundary.encode(), path.encode()))
        body = b"".join(parts) + b"--%s--\r\n" % boundary.encode()
        return self.call("POST", "/v1/file/upload", body, invalid=invalid,
                         content_type="multipart/form-data; boundary=" + boundary)

    def download(self, path):
        return self.call("GET", "/v1/file/download", query={"path": path})

    def home(self):
        return self.call("GET", "/v1/sandbox").json()["home_dir"]

    # ------------------------------------------------------------ sandbox

    def test_sandbox_context_names_the_working_directory(self):
        answer = self.call("GET", "/v1/sandbox")
        self.assertEqual(answer.status, 200)
        context = answer.json()
        self.assertTrue(context["home_dir"].startswith("/"))
        self.assertEqual(self.exec("pwd")["stdout"], context["home_dir"] + "\n")

    def test_sandbox_url_is_the_emulator_with_the_sandbox_id(self):
        self.assertEqual(self.url, self.emu.base + "/s/aio1")

    # ------------------------------------------------------------ exec

    def test_exit_codes_are_completed_with_their_code(self):
        for code in (0, 1, 2, 255):
            data = self.exec("exit %d" % code)
            self.assertEqual((data["status"], data["exit_code"]), ("completed", code))
        data = self.exec("no-such-program-sbx")
        self.assertEqual((data["status"], data["exit_code"]), ("completed", 127))

    def test_a_command_killed_by_a_signal_is_killed(self):
        data = self.exec("kill -9 $$")
        self.assertEqual((data["status"], data["exit_code"]), ("killed", -9))

    def test_stdout_and_stderr_are_apart_with_byte_offsets(self):
        data = self.exec("printf 'h\\303\\251'; printf 'err' >&2")
        self.assertEqual((data["stdout"], data["stderr"]), ("h\u00e9", "err"))
        self.assertEqual((data["offset"], data["stderr_offset"]), (3, 3))
        self.assertEqual(data["command"], "printf 'h\\303\\251'; printf 'err' >&2")

    def test_output_that_is_not_utf8_reads_as_replacement_characters(self):
        data = self.exec("printf 'a\\377b\\000c'")
        self.assertEqual(data["stdout"], "a\ufffdb\x00c")

    def test_session_id_is_echoed_or_made(self):
        self.assertEqual(self.exec("true", session_id="s-1")["session_id"], "s-1")
        first, second = self.exec("true"), self.exec("true")
        self.assertNotEqual(first["session_id"], second["session_id"])
        self.assertNotEqual(first["command_id"], second["command_id"])

    def test_env_values_pass_verbatim_for_this_command_only(self):
        values = {"A": "two words", "B": "$(echo injected)", "C": "", "D": "quote ' \" ;"}
        data = self.exec('printf "%s|%s|%s|%s" "$A" "$B" "$C" "$D"', env=values)
        self.assertEqual(data["stdout"], "two words|$(echo injected)||quote ' \" ;")
        self.assertEqual(self.exec('printf "%s" "${A-unset}"')["stdout"], "unset")
        self.assertEqual(self.exec("true", env=None)["exit_code"], 0)

    def test_env_name_the_environment_cannot_hold_is_422(self):
        for name in ("1X", "A=B", "with space", ""):
            # valid for the schema, which has no pattern
            self.unprocessable("/v1/bash/exec", {"command": "true", "env": {name: "v"}},
                               ["body", "env"], schema_invalid=False)

    def test_exec_dir_sets_the_working_directory(self):
        home = self.home()
        self.exec("mkdir -p sub/deeper")
        self.assertEqual(self.exec("pwd", exec_dir=home + "/sub")["stdout"], home + "/sub\n")
        self.assertEqual(self.exec("pwd", exec_dir="sub/deeper")["stdout"],
                         home + "/sub/deeper\n")
        self.assertEqual(self.exec("pwd", exec_dir=None)["stdout"], home + "\n")
        answer = self.call("POST", "/v1/bash/exec", {"command": "pwd", "exec_dir": "missing"})
        self.assertEqual(answer.status, 200)
        self.assertFalse(answer.json()["success"])
        self.assertIsNone(answer.json()["data"])

    def test_hard_timeout_kills_and_answers_timed_out(self):
        start = time.monotonic()
        data = self.exec("echo started; sleep 60", hard_timeout=0.5)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual(data["status"], "timed_out")
        self.assertIsNone(data["exit_code"])
        self.assertEqual(data["stdout"], "started\n")
        data = self.exec("exit 4", hard_timeout=30)
        self.assertEqual((data["status"], data["exit_code"]), ("completed", 4))

    def test_max_output_length_cuts_characters_in_the_middle(self):
        # 400 two-byte characters: a cut in bytes would differ
        command = "i=0; while [ $i -lt 400 ]; do printf '\\303\\251'; i=$((i+1)); done; printf END"
        data = self.exec(command, max_output_length=100)
        out = data["stdout"]
        self.assertTrue(out.startswith("\u00e9" * 50 + "\n"), out)
        self.assertTrue(out.endswith("\n" + "\u00e9" * 47 + "END"), out)
        self.assertIn("[303 characters truncated]", out)
        self.assertEqual(data["offset"], 803)
        self.assertEqual(len(self.exec(command, max_output_length=0)["stdout"]), 403)
        self.assertEqual(len(self.exec(command, max_output_length=403)["stdout"]), 403)
        data = self.exec("printf err >&2; seq 1 20000", max_output_length=11)
        self.assertEqual(data["stderr"], "err")
        self.assertTrue(data["stdout"].startswith("1\n2\n3\n"))

    def test_default_max_output_length_is_50000_characters(self):
        out = self.exec("head -c 60000 /dev/zero | tr '\\0' x")["stdout"]
        self.assertEqual(out.count("x"), 50000)
        self.assertIn("[10000 characters truncated]", out)

    # ------------------------------------------------------------ live commands

    def start(self, command, url=None, **fields):
        """An async exec: its BashExecResult, checked to name one command."""
        answer = self.call("POST", "/v1/bash/exec",
                           dict(fields, command=command, async_mode=True), url=url)
        self.assertEqual(answer.status, 200, answer.body)
        self.assertTrue(answer.json()["success"], answer.body)
        data = answer.json()["data"]
        self.assertEqual(data["session_id"], data["command_id"])
        self.assertEqual(data["command"], command)
        self.assertEqual((data["offset"], data["stderr_offset"]), (0, 0))
        return data

    def follow(self, session, offset=0, stderr_offset=0):
        """Long-poll /v1/bash/output until the command ended: its stdout,
        stderr, last answer, and how many answers it took."""
        out, err, polls = "", "", 0
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            data = self.ok("POST", "/v1/bash/output",
                           {"session_id": session, "command_id": session, "offset": offset,
                            "stderr_offset": stderr_offset, "wait": True, "wait_timeout": 5})
            polls += 1
            out += data["stdout"]
            err += data["stderr"]
            # offsets count the bytes read (here all UTF-8 text)
            self.assertEqual(data["offset"], offset + len(data["stdout"].encode()))
            self.assertEqual(data["stderr_offset"],
                             stderr_offset + len(data["stderr"].encode()))
            offset, stderr_offset = data["offset"], data["stderr_offset"]
            if data["command"]["status"] != "running":
                return out, err, data, polls
        self.fail("command %s did not end within %d s" % (session, DEADLINE_S))

    def test_async_exec_returns_at_once_and_output_follows(self):
        started = self.start("printf 'a\\000b'; echo err >&2; "
                             "sleep 0.3; echo done; exit 3")
        self.assertIn(started["status"], ("running", "completed"))
        out, err, last, polls = self.follow(started["session_id"])
        self.assertEqual(out, "a\x00bdone\n")
        self.assertEqual(err, "err\n")
        self.assertEqual(last["command"]["status"], "completed")
        self.assertEqual(last["command"]["exit_code"], 3)
        self.assertEqual(last["command"]["command_id"], started["command_id"])
        # an ended command's output stays readable, from any offset
        again = self.ok("POST", "/v1/bash/output",
                        {"session_id": started["session_id"], "offset": 3})
        self.assertEqual(again["stdout"], "done\n")
        self.assertEqual(again["command"]["status"], "completed")

    def test_a_character_printed_in_two_pieces_arrives_whole(self):
        # the second half comes after a pause: a long poll waits for it
        started = self.start("printf 'a\\303'; sleep 0.5; printf '\\251b'")
        out, _, _, _ = self.follow(started["session_id"])
        self.assertEqual(out, "a\u00e9b")

    def test_write_reaches_stdin(self):
        started = self.start("read line; echo \"got $line\"")
        self.ok("POST", "/v1/bash/write", {"session_id": started["session_id"],
                                           "input": "hello \u00e9\n"})
        out, _, last, _ = self.follow(started["session_id"])
        self.assertEqual(out, "got hello \u00e9\n")
        self.assertEqual(last["command"]["exit_code"], 0)

    def test_kill_ends_the_command_and_what_it_started(self):
        started = self.start("sleep 60.25 & sleep 60.25; echo never")
        self.ok("POST", "/v1/bash/kill", {"session_id": started["session_id"]})
        out, _, last, _ = self.follow(started["session_id"])
        self.assertEqual(out, "")
        self.assertEqual(last["command"]["status"], "killed")
        self.assertEqual(last["command"]["exit_code"], -15)
        # nothing it started is left (the pattern does not match pgrep's own
        # shell); a signalled child may take a moment to go
        deadline = time.monotonic() + DEADLINE_S
        while self.exec("pgrep -f '[s]leep 60.25' || echo none")["stdout"] != "none\n":
            self.assertLess(time.monotonic(), deadline, "a child of a killed command survived")

    def test_hard_timeout_times_an_async_command_out(self):
        started = self.start("sleep 60", hard_timeout=0.5)
        _, _, last, _ = self.follow(started["session_id"])
        self.assertEqual(last["command"]["status"], "timed_out")

    def test_unknown_sessions_and_commands_are_404(self):
        for body in ({"session_id": "nosuch"}, {"session_id": "nosuch", "command_id": "x"}):
            answer = self.call("POST", "/v1/bash/output", body)
            self.assertEqual(answer.status, 404)
        self.assertEqual(self.call("POST", "/v1/bash/output",
                                   {"session_id": "nosuch"}).json()["detail"],
                         "Session 'nosuch' not found")
        started = self.start("true")
        mismatch = self.call("POST", "/v1/bash/output",
                             {"session_id": started["session_id"], "command_id": "other"})
        self.assertEqual(mismatch.status, 404)
        self.assertEqual(self.call("POST", "/v1/bash/write",
                                   {"session_id": "nosuch", "input": "x"}).status, 404)
        self.assertEqual(self.call("POST", "/v1/bash/kill", {"session_id": "nosuch"}).status,
                         404)
        self.assertEqual(self.call("POST", "/v1/bash/sessions/nosuch/close").status, 404)

    def test_another_sandbox_never_reaches_a_command(self):
        other = self.emu.create("aio-other")
        started = self.start("sleep 60")
        session = started["session_id"]
        for route, body in (("/v1/bash/output", {"session_id": session}),
                            ("/v1/bash/write", {"session_id": session, "input": "x"}),
                            ("/v1/bash/kill", {"session_id": session, "signal": "SIGKILL"})):
            self.assertEqual(self.call("POST", route, body, url=other).status, 404, route)
        self.assertEqual(self.call("POST", "/v1/bash/sessions/%s/close" % session,
                                   url=other).status, 404)
        data = self.ok("POST", "/v1/bash/output", {"session_id": session})
        self.assertEqual(data["command"]["status"], "running")
        self.ok("POST", "/v1/bash/kill", {"session_id": session, "signal": "SIGKILL"})
        _, _, last, _ = self.follow(session)
        self.assertEqual(last["command"]["exit_code"], -9)

    def test_a_cursor_past_the_output_is_400(self):
        started = self.start("printf abc")
        self.follow(started["session_id"])
        answer = self.call("POST", "/v1/bash/output",
                           {"session_id": started["session_id"], "offset": 4})
        self.assertEqual(answer.status, 400, answer.body)

    def test_close_ends_and_forgets_a_session(self):
        running = self.start("sleep 60")
        self.ok("POST", "/v1/bash/sessions/%s/close" % running["session_id"])
        ended = self.start("echo hi")
        self.follow(ended["session_id"])
        self.ok("POST", "/v1/bash/sessions/%s/close" % ended["session_id"])
        for session in (running["session_id"], ended["session_id"]):
            self.assertEqual(self.call("POST", "/v1/bash/output",
                                       {"session_id": session}).status, 404)

    def test_sessions_list_each_command(self):
        started = self.start("sleep 60")
        listed = {s["session_id"]: s for s in self.ok("GET", "/v1/bash/sessions")}
        mine = listed[started["session_id"]]
        self.assertEqual(mine["status"], "ready")
        self.assertEqual(mine["current_command"], "sleep 60")
        self.assertEqual(mine["command_count"], 1)
        self.assertEqual(mine["working_dir"], self.home())
        self.ok("POST", "/v1/bash/sessions/%s/close" % started["session_id"])
        listed = [s["session_id"] for s in self.ok("GET", "/v1/bash/sessions")]
        self.assertNotIn(started["session_id"], listed)

    def test_process_bodies_the_model_refuses_are_422(self):
        self.unprocessable("/v1/bash/output", {}, ["body", "session_id"])
        self.unprocessable("/v1/bash/output", {"session_id": "s", "offset": "1"},
                           ["body", "offset"])
        self.unprocessable("/v1/bash/output", {"session_id": "s", "wait": None},
                           ["body", "wait"])
        self.unprocessable("/v1/bash/output", {"session_id": "s", "offset": -1},
                           ["body", "offset"], schema_invalid=False)
        self.unprocessable("/v1/bash/write", {"session_id": "s"}, ["body", "input"])
        self.unprocessable("/v1/bash/kill", {}, ["body", "session_id"])
        self.unprocessable("/v1/bash/kill", {"session_id": "s", "signal": "SIGHUP"},
                           ["body", "signal"], schema_invalid=False)

    def test_exec_bodies_the_model_refuses_are_422(self):
        self.unprocessable("/v1/bash/exec", {}, ["body", "command"])
        self.unprocessable("/v1/bash/exec", {"command": 5}, ["body", "command"])
        self.unprocessable("/v1/bash/exec", {"command": "x", "env": {"A": 1}},
                           ["body", "env", "A"])
        self.unprocessable("/v1/bash/exec", {"command": "x", "env": ["A"]}, ["body", "env"])
        self.unprocessable("/v1/bash/exec", {"command": "x", "hard_timeout": "1"},
                           ["body", "hard_timeout"])
        self.unprocessable("/v1/bash/exec", {"command": "x", "max_output_length": 1.5},
                           ["body", "max_output_length"])
        self.unprocessable("/v1/bash/exec", {"command": "x", "async_mode": None},
                           ["body", "async_mode"])
        self.unprocessable("/v1/bash/exec", [], ["body"])
        self.unprocessable("/v1/bash/exec", b'{"command": "x",}', None,
                           content_type="application/json")
        # Python's reader takes the last of two names: valid for the schema
        self.unprocessable("/v1/bash/exec", b'{"command": "x", "command": "y"}', None,
                           content_type="application/json", schema_invalid=False)
        self.unprocessable("/v1/bash/exec", b"", ["body"], content_type="application/json")

    def shell(self, command, **fields):
        return self.ok("POST", "/v1/shell/exec", dict(fields, command=command))

    def test_shell_exec_joins_the_streams_in_order_with_shell_statuses(self):
        data = self.shell("echo one; echo two >&2; echo three; exit 3")
        self.assertEqual((data["status"], data["exit_code"]), ("completed", 3))
        self.assertEqual(data["output"], "one\ntwo\nthree\n")
        self.assertEqual(data["command"], "echo one; echo two >&2; echo three; exit 3")
        self.assertTrue(data["session_id"])
        # (the session routes' schemas: test_aio_shell.py)
        created = urllib.request.Request(
            self.url + "/v1/shell/sessions/create", method="POST",
            data=json.dumps({"id": "sh-1"}).encode(),
            headers={"Content-Type": "application/json", "X-AIO-API-Key": KEY})
        urllib.request.urlopen(created, timeout=DEADLINE_S).close()
        self.assertEqual(self.shell("true", id="sh-1")["session_id"], "sh-1")
        self.assertIn("nosuchprog", self.shell("nosuchprog")["output"])
        self.assertEqual(self.shell("nosuchprog")["exit_code"], 127)
        # the command's own lines keep their numbers in the shell's messages
        self.assertIn(" 2: ", self.shell("true\nnosuchprog")["output"])
        data = self.shell("kill -9 $$")
        self.assertEqual(data["status"], "terminated")
        self.assertNotIn("exit_code", data)
        start = time.monotonic()
        data = self.shell("echo started; sleep 60", hard_timeout=0.5, no_change_timeout=600)
        self.assertLess(time.monotonic() - start, 30)
        self.assertEqual((data["status"], data["output"]), ("hard_timeout", "started\n"))

    def test_shell_exec_dir_falls_back_unless_strict(self):
        home = self.home()
        self.exec("mkdir -p shsub")
        self.assertEqual(self.shell("pwd", exec_dir=home + "/shsub")["output"],
                         home + "/shsub\n")
        self.assertEqual(self.shell("pwd", exec_dir="missing")["output"], home + "\n")
        answer = self.call("POST", "/v1/shell/exec",
                           {"command": "pwd", "exec_dir": "missing", "strict": True})
        self.assertFalse(answer.json()["success"])

    def test_shell_exec_truncates_to_30000_characters_unless_told_not_to(self):
        command = "head -c 40000 /dev/zero | tr '\\0' x"
        self.assertEqual(self.shell(command)["output"].count("x"), 30000)
        self.assertEqual(len(self.shell(command, truncate=False)["output"]), 40000)

    def test_shell_exec_bodies_the_model_refuses_are_422(self):
        self.unprocessable("/v1/shell/exec", {}, ["body", "command"])
        self.unprocessable("/v1/shell/exec", {"command": "x", "no_change_timeout": 1.5},
                           ["body", "no_change_timeout"])
        self.unprocessable("/v1/shell/exec", {"command": "x", "truncate": None},
                           ["body", "truncate"])
        self.unprocessable("/v1/shell/exec", {"command": "x", "id": 5}, ["body", "id"])
        # async_mode starts the command in the background (test_aio_shell.py)
        self.assertEqual(self.shell("true", async_mode=True)["status"], "running")

    # ------------------------------------------------------------ files

    def test_write_then_read_slices_lines_zero_based_end_exclusive(self):
        text = "l0\nl1\nl2\nl3"
        data = self.ok("POST", "/v1/file/write", {"file": "lines.txt", "content": text})
        self.assertEqual(data, {"file": "lines.txt", "bytes_written": 11})
        read = lambda **kw: self.ok("POST", "/v1/file/read", dict(kw, file="lines.txt"))
        self.assertEqual(read(), {"content": text, "file": "lines.txt"})
        self.assertEqual(read(start_line=1, end_line=3)["content"], "l1\nl2\n")
        self.assertEqual(read(start_line=3)["content"], "l3")
        self.assertEqual(read(end_line=1)["content"], "l0\n")
        self.assertEqual(read(start_line=-2)["content"], "l2\nl3")
        self.assertEqual(read(start_line=2, end_line=2)["content"], "")
        self.assertEqual(read(start_line=9)["content"], "")
        self.assertEqual(read(start_line=None, end_line=None, sudo=False)["content"], text)

    def test_write_appends_and_adds_newlines_in_text_mode(self):
        path = self.home() + "/append.txt"
        self.ok("POST", "/v1/file/write", {"file": path, "content": "a"})
        self.ok("POST", "/v1/file/write", {"file": path, "content": "b", "append": True,
                                           "leading_newline": True, "trailing_newline": True})
        self.assertEqual(self.download(path).body, b"a\nb\n")
        self.ok("POST", "/v1/file/write", {"file": path, "content": "c", "append": False})
        self.assertEqual(self.download(path).body, b"c")

    def test_base64_write_and_download_are_byte_exact(self):
        blob = bytes(range(256)) * 5 + b"\x00\r\n\xff"
        data = self.ok("POST", "/v1/file/write", {"file": "blob.bin", "encoding": "base64",
                                                  "content": base64.b64encode(blob).decode()})
        self.assertEqual(data["bytes_written"], len(blob))
        answer = self.download("blob.bin")
        self.assertEqual((answer.status, answer.body), (200, blob))
        self.assertEqual(self.exec("wc -c < blob.bin")["stdout"].strip(), str(len(blob)))

    def test_write_content_is_decoded_byte_exact_wherever_it_stands(self):
        # every JSON escape, a surrogate pair, content first and newlines
        # asked after it; a name that holds "content" in escaped quotes
        name = 'q "content": x.txt'
        raw = (b'{"content": "q\\"b\\\\s\\/ \\b\\f\\n\\r\\t \\u00e9\\u20AC'
               b'\\ud83d\\ude00 end", "file": "q \\"content\\": x.txt",'
               b' "leading_newline": true, "trailing_newline": true}')
        expected = "\nq\"b\\s/ \b\f\n\r\t \u00e9\u20ac\U0001F600 end\n".encode()
        data = self.ok("POST", "/v1/file/write", raw, content_type="application/json")
        self.assertEqual(data, {"file": name, "bytes_written": len(expected)})
        self.assertEqual(self.download(self.home() + "/" + name).body, expected)
        # base64 folded with escaped line ends and "\/", content last
        blob = bytes(range(256)) * 3
        b64 = base64.b64encode(blob).decode()
        folded = b64[:76] + "\\n" + b64[76:152] + "\\r\\n" + b64[152:].replace("/", "\\/")
        raw = ('{"file": "folded.bin", "encoding": "base64", "content": "%s"}' % folded).encode()
        self.assertEqual(self.ok("POST", "/v1/file/write", raw, content_type="application/json"),
                         {"file": "folded.bin", "bytes_written": len(blob)})
        self.assertEqual(self.download("folded.bin").body, blob)
        # a member name written with an escape is the same member
        raw = b'{"file": "key.txt", "con\\u0074ent": "by an escaped name"}'
        self.ok("POST", "/v1/file/write", raw, content_type="application/json")
        self.assertEqual(self.download("key.txt").body, b"by an escaped name")
        self.unprocessable("/v1/file/write", {"file": "a", "content": 5}, ["body", "content"])

    def test_text_content_as_the_remote_backend_escapes_it_is_byte_exact(self):
        # the forms sbx's escaper writes: short escapes, \u00XX for other
        # control characters, every other byte raw (U+2028, 4-byte UTF-8),
        # at each place of an eight-byte word, in a body of 200 KB
        raw_text = '"\\ \b\f\n\r\t \x01\x1f\x7f \u2028 \u00e9 \U0001F600 /'.encode()
        escaped = (raw_text.decode().replace("\\", "\\\\").replace('"', '\\"')
                   .replace("\b", "\\b").replace("\f", "\\f").replace("\n", "\\n")
                   .replace("\r", "\\r").replace("\t", "\\t").replace("\x01", "\\u0001")
                   .replace("\x1f", "\\u001f"))
        pieces = [("a" * shift + escaped, b"a" * shift + raw_text) for shift in range(8)]
        chars = "".join(p[0] for p in pieces) * 400
        expected = b"".join(p[1] for p in pieces) * 400
        raw = b'{"file": "escaped.txt", "content": "' + chars.encode() + b'", "encoding": "utf-8"}'
        data = self.ok("POST", "/v1/file/write", raw, content_type="application/json")
        self.assertEqual(data, {"file": "escaped.txt", "bytes_written": len(expected)})
        self.assertEqual(self.download("escaped.txt").body, expected)

    def test_a_write_body_at_fault_is_refused_alike_however_its_content_is_lexed(self):
        # a content of plain characters is checked apart, a block at a
        # time, one with a surrogate escape by the strict lexer with the
        # rest: a fault elsewhere in the body (or in the content) answers
        # the same, byte for byte, at the same offset either way
        quick = "x" * 4986 + "\\n" * 4 + "\\u00e9"
        full = "x" * 4988 + "\\ud83d\\ude00"
        faults = [
            '{"file": "f.txt", "content": "%s", "append": true,}',
            '{"file": "f.txt", "content": "%s", "file": "g.txt"}',
            '{"file": "f\\u0000.txt", "content": "%s"}',
            '{"file": "f\xff.txt", "content": "%s"}',
            '{"file": "f.txt", "content": "%s", "x": 1e999}',
            '{"file": "f.txt", "content": "%s", "x": 99999999999999999999}',
            '{"file": "f.txt", "content": "%s" "append": true}',
            '{"file": "f.txt", "content": "%s\x01"}',
            '{"file": "f.txt", "content": "%s\\u0000"}',
            '{"file": "f.txt", "content": "%s\xc3"}',
            '{"file": "f.txt", "content": "%s\\q"}',
            '{"file": "f.txt", "content": "%s"',
        ]
        for fault in faults:
            answers = []
            for content in (quick, full):
                body = (fault % content).encode("latin-1")
                fragment, value = request_value("POST /v1/file/write", "application/json",
                                                body, {})
                answer = self.call("POST", "/v1/file/write", body,
                                   content_type="application/json",
                                   invalid=not is_valid(fragment, value))
                answers.append((answer.status, answer.body))
            self.assertEqual(answers[0], answers[1], fault)
            self.assertEqual(answers[0][0], 422, fault)

    def test_upload_and_download_are_byte_exact(self):
        # the delimiter less its last byte: a part ends only at the whole one
        blob = os.urandom(70000) + b"\r\n--sbx-test-boundary-7f3" + b"\x00" * 10
        answer = self.upload(blob, path="up.bin")
        self.assertEqual(answer.status, 200, answer.body)
        data = answer.json()["data"]
        self.assertEqual(data, {"file_path": "up.bin", "file_size": len(blob), "success": True})
        self.assertEqual(self.download("up.bin").body, blob)
        self.assertEqual(self.download(self.home() + "/up.bin").body, blob)
        empty = self.upload(b"", path="empty.bin").json()["data"]
        self.assertEqual(empty["file_size"], 0)
        self.assertEqual(self.download("empty.bin").body, b"")

    def test_upload_without_path_keeps_the_file_name(self):
        data = self.upload(b"named", filename="named.txt").json()["data"]
        self.assertEqual(data["file_path"], "named.txt")
        self.assertEqual(self.download("named.txt").body, b"named")

    def test_upload_without_file_is_422(self):
        answer = self.upload(None, path="x", invalid=True)
        self.assertEqual(answer.status, 422)
        self.assertEqual(answer.json()["detail"][0]["loc"], ["body", "file"])

    def test_list_reports_files_and_directories(self):
        self.exec("mkdir -p ls/d/e && printf 12345 > ls/a.py && printf 1 > ls/.hidden "
                  "&& printf 22 > ls/d/b.txt && printf 3 > ls/d/e/c.py")
        data = self.ok("POST", "/v1/file/list", {"path": "ls"})
        names = [f["name"] for f in data["files"]]
        self.assertEqual(names, [".hidden", "a.py", "d"])
        self.assertEqual((data["total_count"], data["directory_count"], data["file_count"]),
                         (3, 1, 2))
        a = data["files"][1]
        self.assertEqual((a["path"], a["size"], a["is_directory"], a["extension"]),
                         ("ls/a.py", 5, False, ".py"))
        self.assertIsNone(a["permissions"])
        self.assertTrue(data["files"][2]["is_directory"])
        deep = self.ok("POST", "/v1/file/list", {"path": self.home() + "/ls", "recursive": True,
                                                 "show_hidden": False,
                                                 "include_permissions": True})
        self.assertEqual(sorted(f["path"][len(self.home()):] for f in deep["files"]),
                         ["/ls/a.py", "/ls/d", "/ls/d/b.txt", "/ls/d/e", "/ls/d/e/c.py"])
        self.assertEqual(deep["files"][0]["permissions"], "644")
        one_level = self.ok("POST", "/v1/file/list", {"path": "ls", "recursive": True,
                                                      "max_depth": 2})
        self.assertEqual(one_level["total_count"], 5)
        python = self.ok("POST", "/v1/file/list", {"path": "ls", "recursive": True,
                                                   "file_types": [".py"]})
        self.assertEqual(sorted(f["name"] for f in python["files"] if not f["is_directory"]),
                         ["a.py", "c.py"])
        by_size = self.ok("POST", "/v1/file/list", {"path": "ls", "sort_by": "size",
                                                    "sort_desc": True, "include_size": False})
        self.assertEqual([f["name"] for f in by_size["files"]], ["a.py", ".hidden", "d"])
        self.assertIsNone(by_size["files"][0]["size"])

    def test_handled_file_failures_are_file_operation_errors(self):
        self.exec("mkdir -p errs/dir && printf x > errs/file")
        error = self.file_error("/v1/file/read", {"file": "errs/missing"}, "not_found", "ENOENT")
        self.assertEqual((error["path"], error["operation"], error["errno"]),
                         ("errs/missing", "read", 2))
        self.file_error("/v1/file/read", {"file": "errs/dir"}, "invalid_target", "EISDIR")
        self.file_error("/v1/file/read", {"file": "errs/file/x"}, "invalid_target", "ENOTDIR")
        self.file_error("/v1/file/list", {"path": "errs/file"}, "invalid_target", "ENOTDIR")
        self.file_error("/v1/file/list", {"path": "errs/none"}, "not_found", "ENOENT")
        self.file_error("/v1/file/write", {"file": "errs/dir", "content": "x"},
                        "invalid_target", "EISDIR")
        self.file_error("/v1/file/write", {"file": "errs/none/x", "content": "x"},
                        "not_found", "ENOENT")
        for outside in ("../outside", "/etc/passwd", "errs/../../x"):
            self.file_error("/v1/file/read", {"file": outside}, "invalid_path")
            self.file_error("/v1/file/write", {"file": outside, "content": "x"}, "invalid_path")
        self.assertEqual(self.upload(b"x", path="errs/none/y").json()["data"]["error_type"],
                         "not_found")
        self.file_error("/v1/file/write", {"file": "b64", "encoding": "base64",
                                           "content": "not base64!"}, "decode_error")
        self.ok("POST", "/v1/file/write", {"file": "errs/bin", "encoding": "base64",
                                           "content": "/w=="})
        self.file_error("/v1/file/read", {"file": "errs/bin"}, "decode_error")
        if os.geteuid() != 0:   # root reads every file
            self.exec("printf x > errs/locked && chmod 000 errs/locked")
            self.file_error("/v1/file/read", {"file": "errs/locked"}, "permission_denied",
                            "EACCES")

    def test_download_failures_are_http_statuses(self):
        self.exec("mkdir -p dl/dir")
        self.assertEqual(self.download("dl/missing").status, 404)
        self.assertEqual(self.download("dl/dir").status, 400)
        self.assertEqual(self.download("../x").status, 403)
        answer = self.call("GET", "/v1/file/download", query={}, invalid=True)
        self.assertEqual(answer.status, 422)
        self.assertEqual(answer.json()["detail"][0]["loc"], ["query", "path"])
        answer = self.call("GET", "/v1/file/download",
                           query={"path": "x", "change_policy": "later"}, invalid=True)
        self.assertEqual(answer.status, 422)

    def test_file_bodies_the_models_refuse_are_422(self):
        self.unprocessable("/v1/file/read", {}, ["body", "file"])
        self.unprocessable("/v1/file/read", {"file": "a", "start_line": "1"},
                           ["body", "start_line"])
        self.unprocessable("/v1/file/write", {"file": "a"}, ["body", "content"])
        self.unprocessable("/v1/file/write", {"file": "a", "content": "x", "encoding": "utf-16"},
                           ["body", "encoding"])
        self.unprocessable("/v1/file/write", {"file": "a", "content": "x", "append": "yes"},
                           ["body", "append"])
        self.unprocessable("/v1/file/list", {"recursive": True}, ["body", "path"])
        self.unprocessable("/v1/file/list", {"path": ".", "file_types": [1]},
                           ["body", "file_types", "0"])
        self.unprocessable("/v1/file/list", b"not json", None,
                           content_type="application/json")

    # ------------------------------------------------------------ routing and keys

    def test_routes_not_served_are_404_and_other_methods_405(self):
        for route in ("/v1/nope", "/v1/shell/terminal-url", "/v1/jupyter/execute", "", "/"):
            answer = self.call("POST", route, {})
            self.assertEqual(answer.status, 404, route)
            # The detail says the route is not served and names those that are.
            detail = answer.json()["detail"]
            self.assertIn("does not serve", detail)
            self.assertIn("POST /v1/bash/exec", detail)
        answer = self.call("GET", "/v1/bash/exec")
        self.assertEqual(answer.status, 405)
        self.assertEqual(self.call("GET", "/v1/sandbox", url=self.emu.base + "/s/nosuch").status,
                         404)

    def test_the_key_is_required_when_configured(self):
        self.assertEqual(self.call("GET", "/v1/sandbox", key=None).status, 401)
        self.assertEqual(self.call("GET", "/v1/sandbox", key="wrong").status, 401)
        self.assertEqual(self.call("GET", "/v1/sandbox", key=KEY + "x").status, 401)
        self.assertEqual(self.call("POST", "/v1/bash/exec", {"command": "true"},
                                   key="").status, 401)
        bearer = self.call("GET", "/v1/sandbox", key=None,
                           headers={"Authorization": "Bearer " + KEY})
        self.assertEqual(bearer.status, 200)

    def test_a_deleted_sandbox_url_serves_nothing_and_a_new_one_is_fresh(self):
        url = self.emu.create("aio-gone")
        self.call("POST", "/v1/file/write", {"file": "f", "content": "x"}, url=url)
        req = urllib.request.Request(self.emu.base + "/api/sandboxes/aio-gone", method="DELETE")
        urllib.request.urlopen(req, timeout=DEADLINE_S).close()
        self.assertEqual(self.call("GET", "/v1/sandbox", url=url).status, 404)
        self.assertEqual(self.emu.create("aio-gone"), url)
        self.assertEqual(self.call("GET", "/v1/file/download", query={"path": "f"},
                                   url=url).status, 404)

    # Runs last (unittest sorts by name): every request the log holds.
    def test_zz_request_log_holds_every_request_valid_as_sent(self):
        with open(self.emu.log, encoding="utf-8") as log:
            lines = [json.loads(line) for line in log]
        self.assertGreater(len(lines), 50)
        invalid = 0
        for line in lines:
            spec_key = line["method"] + " " + line["route"]
            if spec_key not in SCHEMAS["routes"]:
                continue
            body = (base64.b64decode(line["body_base64"]) if "body_base64" in line
                    else line["body"].encode())
            fragment, value = request_value(spec_key, line["content_type"], body, line["query"])
            if fragment is not None and not is_valid(fragment, value):
                invalid += 1
        # exactly the requests sent invalid on purpose (422s) fail their schema
        self.assertEqual(invalid, type(self).invalid_sent)


class AioWithoutKey(unittest.TestCase):
    def test_without_a_key_no_key_is_checked(self):
        emu = Emulator()
        try:
            url = emu.create("nokey")
            with urllib.request.urlopen(url + "/v1/sandbox", timeout=DEADLINE_S) as answer:
                validate(SCHEMAS["routes"]["GET /v1/sandbox"]["responses"]["200"]["schema"],
                         json.load(answer))
        finally:
            emu.stop()

    def test_without_aio_urls_are_node_ports_and_no_route_is_served(self):
        emu = Emulator(aio=False)
        try:
            self.assertEqual(emu.create("plain"), "http://127.0.0.1:30000")
            with self.assertRaises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(emu.base + "/s/plain/v1/sandbox", timeout=DEADLINE_S)
            self.assertEqual(caught.exception.code, 404)
            caught.exception.close()
        finally:
            emu.stop()


if __name__ == "__main__":
    unittest.main(verbosity=2)
