"""The AIO sandbox API of sbx, driven by the AIO sandbox's own Python SDK
(the `agent_sandbox` package, the client DeerFlow's AioSandbox calls), as
a real peer: against sbx-provisioner-emu --aio and against sbx-provisiond's
per-sandbox API (BASE/s/TOKEN), both over the local backend on 127.0.0.1.
What the SDK hands its caller is asserted: parsed results, the error
shapes it surfaces (success false with a FileOperationError, ApiError,
UnprocessableEntityError), and bytes exact through base64 writes, uploads
and downloads.  When SBX_DEERFLOW_SRC names DeerFlow's sources, its
AioSandbox class is driven over the same servers too (execute_command with
and without env, read/write/append, update_file, list_dir, glob).

Run by test_aio_sdk.sh, which checks the SDK and the interpreter first:
SBX_AIO_SDK is the SDK's folder (the one holding agent_sandbox/).
"""

import base64
import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
import unittest
import urllib.request

import httpx

sys.path.insert(0, os.environ["SBX_AIO_SDK"])
sys.path.insert(0, os.path.join(os.environ.get("SBX_TEST_SRCDIR", "."), "tests", "support"))

from agent_sandbox import Sandbox  # noqa: E402
from agent_sandbox.core.api_error import ApiError  # noqa: E402
from agent_sandbox.errors import UnprocessableEntityError  # noqa: E402
import listening  # noqa: E402

BUILDDIR = os.environ.get("SBX_TEST_BUILDDIR", ".")
# Generous: a loaded machine must not fail a correct run.
DEADLINE_S = 60
ALL_BYTES = bytes(range(256)) + b"\0\r\n--\0"


class Server:
    """A program that prints "... listening on URL" on its first line,
    run in a private directory; stopped with SIGTERM."""

    def __init__(self, argv_of_dir):
        self.dir = tempfile.mkdtemp(prefix="sbx-aio-sdk-")
        try:
            with open(os.path.join(self.dir, "stderr"), "wb") as stderr:
                self.proc, self.base = listening.start(argv_of_dir(self.dir), DEADLINE_S, stderr)
        except RuntimeError:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise

    def create(self, sandbox_id):
        """Create a sandbox through the provisioner API: its sandbox_url."""
        body = {"sandbox_id": sandbox_id, "user_id": "u", "thread_id": "t"}
        req = urllib.request.Request(self.base + "/api/sandboxes", method="POST",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=DEADLINE_S) as answer:
            return json.load(answer)["sandbox_url"]

    def stop(self):
        """Stop it; it must exit 0 (a sanitizer's report at exit would not),
        else AssertionError with what it said on stderr."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(DEADLINE_S)
        self.proc.stdout.close()
        with open(os.path.join(self.dir, "stderr"), errors="replace") as f:
            said = f.read()
        shutil.rmtree(self.dir, ignore_errors=True)
        if self.proc.returncode != 0:
            raise AssertionError("the server exited %d:\n%s" % (self.proc.returncode, said))


def emulator(d):
    return [os.environ["EMU_BIN"], "--state-dir", os.path.join(d, "state"), "--aio"]


def provisiond(d):
    return [os.path.join(BUILDDIR, "tools", "provisiond", "sbx-provisiond"),
            "--listen", "127.0.0.1:0", "--backend", "local",
            "--set", "state_dir=" + os.path.join(d, "local"),
            "--state-dir", os.path.join(d, "owners")]


@contextlib.contextmanager
def sdk_client(url):
    """An SDK client of `url` on its own connections, closed after."""
    with httpx.Client(timeout=DEADLINE_S) as http:
        yield Sandbox(base_url=url, httpx_client=http)


class SdkContract:
    """The SDK's calls against one server (the subclass says which)."""

    program = None

    @classmethod
    def setUpClass(cls):
        cls.server = Server(cls.program)
        cls.url = cls.server.create("sdk1")
        cls.http = httpx.Client(timeout=DEADLINE_S)
        cls.sdk = Sandbox(base_url=cls.url, httpx_client=cls.http)
        cls.home = cls.sdk.sandbox.get_context().home_dir

    @classmethod
    def tearDownClass(cls):
        cls.http.close()
        cls.server.stop()

    def path(self, name):
        return self.home + "/" + name

    def exec(self, command, **kw):
        answer = self.sdk.bash.exec(command=command, **kw)
        self.assertTrue(answer.success, answer.message)
        return answer.data

    # ------------------------------------------------------------ context

    def test_context_home_dir_is_where_commands_start(self):
        context = self.sdk.sandbox.get_context()
        self.assertTrue(context.home_dir.startswith("/"))
        self.assertEqual(self.exec("pwd").stdout, context.home_dir + "\n")
        self.assertTrue(context.version)

    # ------------------------------------------------------------ bash exec

    def test_exec_exit_codes_are_completed_results(self):
        for code in (0, 1, 2, 127, 255):
            data = self.exec("exit %d" % code)
            self.assertEqual((data.status, data.exit_code), ("completed", code))

    def test_exec_missing_program_exits_127(self):
        data = self.exec("no-such-program-sbx")
        self.assertEqual((data.status, data.exit_code), ("completed", 127))
        self.assertIn("no-such-program-sbx", data.stderr)

    def test_exec_killed_by_a_signal_is_killed_with_minus_signal(self):
        data = self.exec("echo before; kill -9 $$")
        self.assertEqual((data.status, data.exit_code), ("killed", -9))
        self.assertEqual(data.stdout, "before\n")

    def test_exec_streams_stay_apart_with_byte_offsets(self):
        data = self.exec("printf 'out\\n'; printf 'err\\351\\n' >&2")
        self.assertEqual(data.stdout, "out\n")
        self.assertEqual(data.stderr, "err\ufffd\n")
        self.assertEqual((data.offset, data.stderr_offset), (4, 5))
        self.assertTrue(data.session_id and data.command_id)

    def test_exec_nul_bytes_reach_the_text(self):
        self.assertEqual(self.exec("printf 'a\\0b'").stdout, "a\0b")

    def test_exec_env_values_are_not_expanded(self):
        env = {"PLAIN": "x", "TRICKY": "$(echo no) `echo no` 'q' \"d\" ;|&", "EMPTY": ""}
        data = self.exec("printf '%s|%s|%s' \"$PLAIN\" \"$TRICKY\" \"${EMPTY-unset}\"", env=env)
        self.assertEqual(data.stdout, "x|" + env["TRICKY"] + "|")

    def test_exec_invalid_env_name_raises_unprocessable(self):
        for name in ("A-B", "1A", "A=B", ""):
            with self.assertRaises(UnprocessableEntityError, msg=name) as caught:
                self.sdk.bash.exec(command="true", env={name: "v"})
            self.assertEqual(caught.exception.status_code, 422)

    def test_exec_dir_runs_there_and_a_missing_one_fails(self):
        self.exec("mkdir -p sub/dir")
        self.assertEqual(self.exec("pwd", exec_dir=self.path("sub/dir")).stdout,
                         self.path("sub/dir") + "\n")
        answer = self.sdk.bash.exec(command="pwd", exec_dir=self.path("no-such-dir"))
        self.assertFalse(answer.success)
        self.assertTrue(answer.message)

    def test_exec_hard_timeout_kills_and_answers_timed_out(self):
        started = time.monotonic()
        data = self.exec("echo started; sleep 30", hard_timeout=0.5)
        self.assertEqual(data.status, "timed_out")
        self.assertIsNone(data.exit_code)
        self.assertEqual(data.stdout, "started\n")
        self.assertLess(time.monotonic() - started, 25)

    def test_exec_large_hard_timeout_lets_a_command_finish(self):
        data = self.exec("echo done", hard_timeout=3600)
        self.assertEqual((data.status, data.exit_code, data.stdout), ("completed", 0, "done\n"))

    def test_exec_max_output_length_cuts_the_middle(self):
        data = self.exec("printf 'HEAD'; head -c 5000 /dev/zero | tr '\\0' x; printf 'TAIL'",
                         max_output_length=100)
        self.assertLessEqual(len(data.stdout), 200)
        self.assertTrue(data.stdout.startswith("HEAD"))
        self.assertTrue(data.stdout.endswith("TAIL"))
        self.assertEqual(data.offset, 5008)

    def test_exec_async_mode_then_output_follows_to_the_end(self):
        started = self.sdk.bash.exec(command="echo hi; sleep 0.2; echo bye >&2; exit 4",
                                     async_mode=True)
        self.assertTrue(started.success, started.message)
        session = started.data.session_id
        out, err, offset, stderr_offset = "", "", 0, 0
        deadline = time.monotonic() + 60
        while True:
            self.assertLess(time.monotonic(), deadline, "the command did not end")
            answer = self.sdk.bash.output(session_id=session, offset=offset,
                                          stderr_offset=stderr_offset, wait=True,
                                          wait_timeout=5)
            self.assertTrue(answer.success, answer.message)
            out += answer.data.stdout
            err += answer.data.stderr
            offset, stderr_offset = answer.data.offset, answer.data.stderr_offset
            if answer.data.command.status != "running":
                break
        self.assertEqual((out, err), ("hi\n", "bye\n"))
        self.assertEqual(answer.data.command.status, "completed")
        self.assertEqual(answer.data.command.exit_code, 4)

    def test_exec_large_output_is_cut_to_the_default_50000_characters(self):
        # Under the local backend's 1 MiB per stream, so the tail is there
        # (beyond it the backend keeps the first MiB only: docs/emulator.md).
        data = self.exec("head -c 900000 /dev/zero | tr '\\0' x; echo END")
        self.assertEqual(data.stdout.count("x"), 49996)
        self.assertTrue(data.stdout.endswith("END\n"))
        self.assertIn("[850004 characters truncated]", data.stdout)
        self.assertEqual(data.offset, 900004)

    def test_concurrent_clients_each_get_their_own_answers(self):
        def worker(n, failures):
            with sdk_client(self.url) as client:
                for i in range(5):
                    tag = "%d-%d" % (n, i)
                    try:
                        data = client.bash.exec(command="printf %s \"$TAG\"",
                                                env={"TAG": tag}).data
                        client.file.write_file(file=self.path("c-" + tag), content=tag)
                        read = client.file.read_file(file=self.path("c-" + tag)).data.content
                    except Exception as e:  # an error answer is a failure too
                        failures.append((tag, repr(e)))
                        continue
                    if (data.stdout, data.exit_code, read) != (tag, 0, tag):
                        failures.append((tag, data.stdout, read))
        failures = []
        threads = [threading.Thread(target=worker, args=(n, failures)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLINE_S * 2)
        self.assertFalse(any(t.is_alive() for t in threads))
        self.assertEqual(failures, [])

    # ------------------------------------------------------------ shell exec

    def test_shell_exec_command_joins_the_streams(self):
        answer = self.sdk.shell.exec_command(command="echo a; echo b >&2; exit 4",
                                             no_change_timeout=600)
        self.assertTrue(answer.success, answer.message)
        self.assertEqual((answer.data.status, answer.data.exit_code, answer.data.output),
                         ("completed", 4, "a\nb\n"))

    def test_shell_exec_command_hard_timeout(self):
        answer = self.sdk.shell.exec_command(command="echo s; sleep 30", hard_timeout=0.5)
        self.assertEqual((answer.data.status, answer.data.output), ("hard_timeout", "s\n"))
        self.assertIsNone(answer.data.exit_code)

    # ------------------------------------------------------------ files

    def test_write_then_read_text_and_line_slices(self):
        written = self.sdk.file.write_file(file=self.path("t.txt"), content="one\ntwo\nthree\n")
        self.assertTrue(written.success, written.message)
        self.assertEqual(written.data.bytes_written, 14)
        self.assertEqual(self.sdk.file.read_file(file=self.path("t.txt")).data.content,
                         "one\ntwo\nthree\n")
        part = self.sdk.file.read_file(file=self.path("t.txt"), start_line=1, end_line=2)
        self.assertEqual(part.data.content, "two\n")
        self.assertEqual(self.exec("cat t.txt").stdout, "one\ntwo\nthree\n")

    def test_write_append_and_newline_options(self):
        self.sdk.file.write_file(file=self.path("a.txt"), content="x")
        self.sdk.file.write_file(file=self.path("a.txt"), content="y", append=True,
                                 leading_newline=True, trailing_newline=True)
        self.assertEqual(self.sdk.file.read_file(file=self.path("a.txt")).data.content,
                         "x\ny\n")

    def test_base64_write_then_download_is_byte_exact(self):
        written = self.sdk.file.write_file(file=self.path("w.bin"), encoding="base64",
                                           content=base64.b64encode(ALL_BYTES).decode())
        self.assertTrue(written.success, written.message)
        self.assertEqual(written.data.bytes_written, len(ALL_BYTES))
        got = b"".join(self.sdk.file.download_file(path=self.path("w.bin")))
        self.assertEqual(got, ALL_BYTES)

    def test_upload_then_download_is_byte_exact(self):
        for size in (0, 1, len(ALL_BYTES), 300000):
            data = (ALL_BYTES * (size // len(ALL_BYTES) + 1))[:size]
            answer = self.sdk.file.upload_file(file=("up.bin", data), path=self.path("up.bin"))
            self.assertTrue(answer.success, answer.message)
            self.assertEqual((answer.data.file_path, answer.data.file_size),
                             (self.path("up.bin"), size))
            self.assertEqual(b"".join(self.sdk.file.download_file(path=self.path("up.bin"))),
                             data)
            self.assertEqual(self.exec("wc -c < up.bin").stdout.strip(), str(size))

    def test_large_download_is_byte_exact(self):
        digest = self.exec("head -c 20000000 /dev/urandom > big.bin && sha256sum big.bin").stdout
        got = hashlib.sha256()
        size = 0
        for chunk in self.sdk.file.download_file(path=self.path("big.bin")):
            got.update(chunk)
            size += len(chunk)
        self.assertEqual((size, got.hexdigest()), (20000000, digest.split()[0]))

    def test_16_mib_write_read_upload_and_download_by_default(self):
        text = ("0123456789abcdef" * 65536 + "\n") * 16
        written = self.sdk.file.write_file(file=self.path("16m.txt"), content=text)
        self.assertTrue(written.success, written.message)
        self.assertEqual(written.data.bytes_written, len(text))
        read = self.sdk.file.read_file(file=self.path("16m.txt"))
        self.assertTrue(read.success, read.message)
        self.assertEqual(read.data.content, text)
        data = (ALL_BYTES * 65536)[:16 << 20]
        answer = self.sdk.file.upload_file(file=("16m.bin", data), path=self.path("16m.bin"))
        self.assertTrue(answer.success, answer.message)
        self.assertEqual(answer.data.file_size, len(data))
        self.assertEqual(b"".join(self.sdk.file.download_file(path=self.path("16m.bin"))), data)

    def test_a_body_over_the_server_limit_writes_nothing_and_the_server_goes_on(self):
        # Over the server's default limit, by one byte.
        data = b"z" * (self.body_limit + 1)
        try:
            answer = self.sdk.file.upload_file(file=("l.bin", data), path=self.path("l.bin"))
            refused = not answer.success
        except ApiError as e:
            self.assertEqual(e.status_code, 413)
            refused = True
        except httpx.TransportError:
            # The 413 comes from the headers, before the body is read: a
            # client still sending may see the connection close first.
            refused = True
        self.assertTrue(refused)
        listed = self.exec("test -e l.bin && wc -c < l.bin || echo none").stdout.strip()
        self.assertEqual(listed, "none")
        self.assertEqual(self.exec("echo still").stdout, "still\n")

    def test_binary_file_read_as_text_is_a_decode_error(self):
        self.sdk.file.upload_file(file=("b.bin", b"\xff\xfe\0"), path=self.path("b.bin"))
        answer = self.sdk.file.read_file(file=self.path("b.bin"))
        self.assertFalse(answer.success)
        self.assertEqual(answer.data.error_type, "decode_error")

    def test_list_path_names_sizes_and_kinds(self):
        self.exec("mkdir -p lst/d && printf 12345 > lst/f && printf x > lst/d/g && : > lst/.h")
        answer = self.sdk.file.list_path(path=self.path("lst"))
        self.assertTrue(answer.success, answer.message)
        entries = {e.name: e for e in answer.data.files}
        self.assertEqual(sorted(entries), [".h", "d", "f"])
        self.assertTrue(entries["d"].is_directory)
        self.assertFalse(entries["f"].is_directory)
        self.assertEqual(entries["f"].size, 5)
        self.assertEqual(entries["f"].path, self.path("lst/f"))
        self.assertEqual((answer.data.file_count, answer.data.directory_count), (2, 1))
        deep = self.sdk.file.list_path(path=self.path("lst"), recursive=True, show_hidden=False)
        self.assertEqual(sorted(e.path for e in deep.data.files),
                         [self.path("lst/d"), self.path("lst/d/g"), self.path("lst/f")])

    # ------------------------------------------------------------ errors

    def test_missing_file_read_is_a_not_found_operation_error(self):
        answer = self.sdk.file.read_file(file=self.path("missing.txt"))
        self.assertFalse(answer.success)
        self.assertEqual((answer.data.error_type, answer.data.errno_name, answer.data.operation),
                         ("not_found", "ENOENT", "read"))
        self.assertEqual(answer.data.path, self.path("missing.txt"))
        self.assertIn("no such file or directory", answer.message)

    def test_missing_directory_list_is_not_found(self):
        answer = self.sdk.file.list_path(path=self.path("missing-dir"))
        self.assertFalse(answer.success)
        self.assertEqual(answer.data.error_type, "not_found")
        self.assertIsNone(answer.data.files)

    def test_write_into_a_missing_directory_is_not_found(self):
        answer = self.sdk.file.write_file(file=self.path("nodir/f.txt"), content="x")
        self.assertFalse(answer.success)
        self.assertEqual(answer.data.error_type, "not_found")

    def test_read_of_a_directory_is_an_operation_error(self):
        self.exec("mkdir -p adir")
        answer = self.sdk.file.read_file(file=self.path("adir"))
        self.assertFalse(answer.success)
        self.assertEqual(answer.data.operation, "read")
        self.assertTrue(answer.data.error_type)

    def test_missing_file_download_raises_api_error_404(self):
        with self.assertRaises(ApiError) as caught:
            b"".join(self.sdk.file.download_file(path=self.path("missing.bin")))
        self.assertEqual(caught.exception.status_code, 404)
        self.assertIn("no such file or directory", caught.exception.body["detail"])

    def test_path_outside_the_sandbox_reads_and_writes_nothing(self):
        # Not under /tmp: a path there names the sandbox's own /tmp.
        folder = tempfile.mkdtemp(prefix="sbx-aio-outside-", dir=os.path.abspath(BUILDDIR))
        try:
            outside = os.path.join(folder, "outside.txt")
            with open(outside, "w") as f:
                f.write("secret")
            self.assertFalse(self.sdk.file.read_file(file=outside).success)
            self.assertFalse(self.sdk.file.write_file(file=outside, content="x").success)
            with open(outside) as f:
                self.assertEqual(f.read(), "secret")
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        self.assertFalse(self.sdk.file.read_file(file=self.path("../../outside.txt")).success)

    def test_tmp_is_the_sandboxs_own_not_the_hosts(self):
        host_file = os.path.join(self.server.dir, "host-tmp.txt")
        if not host_file.startswith("/tmp/"):
            self.skipTest("the server's folder is not under /tmp (TMPDIR is set)")
        with open(host_file, "w") as f:
            f.write("host")
        self.assertFalse(self.sdk.file.read_file(file=host_file).success)
        self.assertTrue(self.sdk.file.write_file(file="/tmp/sdk-tmp.txt", content="box").success)
        self.assertEqual(self.sdk.file.read_file(file="/tmp/sdk-tmp.txt").data.content, "box")
        self.assertEqual(self.exec("cat /tmp/sdk-tmp.txt").stdout, "box")
        self.assertFalse(os.path.exists("/tmp/sdk-tmp.txt"))
        with open(host_file) as f:
            self.assertEqual(f.read(), "host")

    def test_destroyed_sandbox_answers_404(self):
        url = self.server.create("sdk-gone")
        with sdk_client(url) as client:
            self.assertTrue(client.sandbox.get_context().home_dir)
            req = urllib.request.Request(self.server.base + "/api/sandboxes/sdk-gone",
                                         method="DELETE")
            urllib.request.urlopen(req, timeout=DEADLINE_S).close()
            with self.assertRaises(ApiError) as caught:
                client.bash.exec(command="true")
            self.assertEqual(caught.exception.status_code, 404)


def load_deerflow(src):
    """DeerFlow's AioSandbox class from its sources in `src` (unmodified),
    with the few DeerFlow modules it imports registered by name; the one
    setting it reads from deerflow.config is given here."""
    def package(name):
        module = types.ModuleType(name)
        module.__path__ = []
        sys.modules[name] = module
        return module

    def load(name, file_name):
        spec = importlib.util.spec_from_file_location(name, os.path.join(src, file_name))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    for name in ("deerflow", "deerflow.config", "deerflow.sandbox", "sbx_deerflow"):
        package(name)
    paths = types.ModuleType("deerflow.config.paths")
    paths.VIRTUAL_PATH_PREFIX = "/mnt/user-data"
    sys.modules[paths.__name__] = paths
    load("deerflow.sandbox.search", "search_01dcb029.py")
    load("deerflow.sandbox.sandbox", "sandbox_01dcb029.py")
    load("sbx_deerflow.sandbox_info", "sandbox_info_01dcb029.py")
    load("sbx_deerflow.backend", "backend_01dcb029.py")
    return load("sbx_deerflow.aio_sandbox", "aio_sandbox_01dcb029.py").AioSandbox


def deerflow_class():
    """AioSandbox, or None with the reason to skip."""
    src = os.environ.get("SBX_DEERFLOW_SRC", "")
    if not src:
        return None, "SBX_DEERFLOW_SRC (DeerFlow's src folder) is not set"
    try:
        return load_deerflow(src), None
    except (ImportError, OSError) as e:
        return None, "DeerFlow's AioSandbox cannot be loaded from %s: %s" % (src, e)


class DeerFlowContract:
    """DeerFlow's AioSandbox over one server (the subclass says which)."""

    program = None

    @classmethod
    def setUpClass(cls):
        aio_sandbox, why = deerflow_class()
        if aio_sandbox is None:
            raise unittest.SkipTest(why)
        cls.server = Server(cls.program)
        cls.box = aio_sandbox("df1", cls.server.create("df1"))
        cls.home = cls.box.home_dir

    @classmethod
    def tearDownClass(cls):
        cls.box.close()
        cls.server.stop()

    def path(self, name):
        return self.home + "/" + name

    def test_execute_command_with_env_joins_stdout_and_stderr(self):
        self.assertEqual(self.box.execute_command("echo $K; echo e >&2", env={"K": "v w"}),
                         "v w\n\nStd Error:\ne\n")
        self.assertEqual(self.box.execute_command("true", env={"K": "v"}), "(no output)")

    def test_execute_command_without_env_runs_in_the_shell(self):
        self.assertEqual(self.box.execute_command("echo out; echo err >&2; exit 3"),
                         "out\nerr\n")
        self.assertEqual(self.box.execute_command("true"), "(no output)")

    def test_list_dir_finds_files_and_directories(self):
        self.box.execute_command("mkdir -p ld/a/b/c && : > ld/f && : > ld/a/b/c/deep")
        self.assertEqual(sorted(self.box.list_dir(self.path("ld"))),
                         [self.path("ld"), self.path("ld/a"), self.path("ld/a/b"),
                          self.path("ld/f")])

    def test_execute_command_with_a_bad_env_name_is_refused_by_deerflow(self):
        with self.assertRaises(ValueError):
            self.box.execute_command("true", env={"A-B": "v"})

    def test_write_read_and_append(self):
        self.box.write_file(self.path("df.txt"), "l1\nl2\n")
        self.box.write_file(self.path("df.txt"), "l3\n", append=True)
        self.assertEqual(self.box.read_file(self.path("df.txt")), "l1\nl2\nl3\n")
        self.assertEqual(self.box.read_file(self.path("df.txt"), start_line=2, end_line=3),
                         "l2\nl3\n")

    def test_write_of_a_1_mb_text_is_read_back(self):
        text = "a line of text\n" * 70000
        self.box.write_file(self.path("1m.txt"), text)
        self.assertEqual(self.box.read_file(self.path("1m.txt")), text)

    def test_read_of_a_missing_file_is_an_error_text(self):
        self.assertTrue(self.box.read_file(self.path("nope.txt")).startswith("Error: "))

    def test_update_file_writes_bytes_exactly(self):
        self.box.update_file(self.path("df.bin"), ALL_BYTES)
        with sdk_client(self.box.base_url) as sdk:
            got = b"".join(sdk.file.download_file(path=self.path("df.bin")))
        self.assertEqual(got, ALL_BYTES)

    def test_glob_with_directories_walks_the_listing(self):
        self.box.write_file(self.path("g.md"), "x")
        self.box.execute_command("mkdir -p gdir && printf y > gdir/h.md")
        matches, truncated = self.box.glob(self.home, "**/*.md", include_dirs=True)
        self.assertFalse(truncated)
        self.assertIn(self.path("g.md"), matches)
        self.assertIn(self.path("gdir/h.md"), matches)


class EmulatorSdk(SdkContract, unittest.TestCase):
    program = staticmethod(emulator)
    body_limit = 48 << 20


class ProvisiondSdk(SdkContract, unittest.TestCase):
    program = staticmethod(provisiond)
    body_limit = 32 << 20


class EmulatorDeerFlow(DeerFlowContract, unittest.TestCase):
    program = staticmethod(emulator)


class ProvisiondDeerFlow(DeerFlowContract, unittest.TestCase):
    program = staticmethod(provisiond)


if __name__ == "__main__":
    unittest.main(verbosity=2)
