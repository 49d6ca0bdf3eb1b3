"""The AIO shell sessions of sbx-provisiond (local backend), driven by the
AIO sandbox's own Python SDK and by DeerFlow's AioSandbox on top of it:
`cd` and `export` persist between DeerFlow's execute_command calls, its
recovery path (a session created, used and cleaned up) works, and the
SDK drives a background command (async_mode, view, write, wait, kill),
also from a client that goes away mid-wait.  One daemon, one sandbox per
client kind.

Run by test_aio_shell_sdk.sh (through test_aio_sdk.sh's checks).
"""

import os
import sys
import time
import unittest

import httpx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aio_sdk import DEADLINE_S, Server, deerflow_class, provisiond, sdk_client  # noqa: E402


class ShellSessions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(provisiond)
        cls.url = cls.server.create("shell-sdk")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_deerflow_keeps_cd_and_export_and_recovers_on_a_fresh_session(self):
        aio_sandbox, why = deerflow_class()
        if aio_sandbox is None:
            self.skipTest(why)
        box = aio_sandbox("df-shell", self.server.create("df-shell"))
        try:
            home = box.home_dir
            box.execute_command("mkdir -p proj && cd proj && export STAGE=dev")
            self.assertEqual(box.execute_command('pwd; echo "$STAGE"'),
                             home + "/proj\ndev\n")
            # Output that looks like a broken AIO session sends DeerFlow to
            # its recovery path: a session of its own, used, then cleaned up.
            signature = "'ErrorObservation' object has no attribute 'exit_code'"
            answer = box.execute_command('echo "%s"; pwd; echo "${STAGE:-unset}"' % signature)
            self.assertEqual(answer, signature + "\n" + home + "\nunset\n")
            with sdk_client(box.base_url) as sdk:
                self.assertEqual(list(sdk.shell.list_sessions().data.sessions), ["default"])
            # the default session is as it was
            self.assertEqual(box.execute_command("pwd"), home + "/proj\n")
        finally:
            box.close()

    def test_the_sdk_drives_a_background_command(self):
        with sdk_client(self.url) as sdk:
            made = sdk.shell.create_session(id="bg")
            self.assertEqual(made.data.session_id, "bg")
            started = sdk.shell.exec_command(
                id="bg", async_mode=True,
                command='echo ready; read answer; echo "got $answer"; sleep 60')
            self.assertEqual(started.data.status, "running")
            self.assertEqual(sdk.shell.write_to_process(id="bg", input="42",
                                                        press_enter=True).data.status,
                             "running")
            deadline = time.monotonic() + DEADLINE_S
            view = sdk.shell.view(id="bg").data
            while "got 42" not in view.output and time.monotonic() < deadline:
                view = sdk.shell.view(id="bg").data
            self.assertEqual((view.output, view.status), ("ready\ngot 42\n", "running"))
            self.assertEqual(sdk.shell.wait_for_process(id="bg", seconds=0).data.status,
                             "running")
            killed = sdk.shell.kill_process(id="bg").data
            self.assertEqual((killed.status, killed.exit_code), ("terminated", None))
            self.assertEqual(sdk.shell.wait_for_process(id="bg", seconds=5).data.status,
                             "terminated")
            sdk.shell.cleanup_session("bg")

    def test_a_client_gone_mid_wait_leaves_the_daemon_serving(self):
        with sdk_client(self.url) as sdk:
            sdk.shell.create_session(id="gone")
            sdk.shell.exec_command(id="gone", async_mode=True, command="sleep 60")
        with httpx.Client(timeout=0.3) as impatient:
            from agent_sandbox import Sandbox
            client = Sandbox(base_url=self.url, httpx_client=impatient)
            for _ in range(4):
                with self.assertRaises(httpx.TimeoutException):
                    client.shell.wait_for_process(id="gone", seconds=50)
        with sdk_client(self.url) as sdk:
            start = time.monotonic()
            self.assertEqual(sdk.shell.exec_command(command="echo alive").data.output,
                             "alive\n")
            self.assertLess(time.monotonic() - start, DEADLINE_S / 2)
            sdk.shell.cleanup_session("gone")
            self.assertNotIn("gone", sdk.shell.list_sessions().data.sessions)


if __name__ == "__main__":
    unittest.main(verbosity=2)
