"""The AIO bash sessions (POST /v1/bash/sessions/create and the bash
routes on a created session's commands) of sbx-provisiond (local
backend), driven by the AIO sandbox's own Python SDK: a session created
in a directory, a synchronous command in it, a live command read, written
and killed through the session, the session listed and closed.  One
daemon, one sandbox.

Run by test_aio_bash_sdk.sh (through test_aio_sdk.sh's checks).
"""

import os
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_aio_sdk import DEADLINE_S, Server, provisiond, sdk_client  # noqa: E402


class BashSessions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(provisiond)
        cls.url = cls.server.create("bash-sdk")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_the_sdk_drives_a_created_session(self):
        with sdk_client(self.url) as sdk:
            home = sdk.sandbox.get_context().home_dir
            made = sdk.bash.create_session(session_id="work").data
            self.assertEqual((made.session_id, made.status, made.working_dir,
                              made.command_count), ("work", "ready", home, 0))
            ran = sdk.bash.exec(session_id="work", command="mkdir -p sub; echo out >&2").data
            self.assertEqual((ran.session_id, ran.status, ran.exit_code, ran.stderr),
                             ("work", "completed", 0, "out\n"))
            ran = sdk.bash.exec(session_id="work", command="pwd", exec_dir=home + "/sub").data
            self.assertEqual(ran.stdout, home + "/sub\n")
            started = sdk.bash.exec(session_id="work", async_mode=True,
                                    command='read -r a; echo "got $a"; sleep 60').data
            self.assertEqual((started.session_id, started.status), ("work", "running"))
            listed = {s.session_id: s for s in sdk.bash.sessions().data}
            self.assertEqual((listed["work"].command_count, listed["work"].current_command,
                              listed["work"].working_dir),
                             (3, 'read -r a; echo "got $a"; sleep 60', home + "/sub"))
            self.assertNotIn(started.command_id, listed)
            self.assertTrue(sdk.bash.write(session_id="work", input="42\n").success)
            got, offset = "", 0
            deadline = time.monotonic() + DEADLINE_S
            while "got 42\n" not in got and time.monotonic() < deadline:
                out = sdk.bash.output(session_id="work", offset=offset, wait=True,
                                      wait_timeout=5).data
                got, offset = got + out.stdout, out.offset
                self.assertEqual(out.command.command_id, started.command_id)
            self.assertEqual(got, "got 42\n")
            self.assertTrue(sdk.bash.kill(session_id="work", signal="SIGKILL").success)
            deadline = time.monotonic() + DEADLINE_S
            while time.monotonic() < deadline:
                out = sdk.bash.output(session_id="work", command_id=started.command_id,
                                      offset=offset, wait=True, wait_timeout=5).data
                if out.command.status != "running":
                    break
            self.assertEqual((out.command.status, out.command.exit_code), ("killed", -9))
            self.assertTrue(sdk.bash.close_session("work").success)
            self.assertNotIn("work", [s.session_id for s in sdk.bash.sessions().data])


if __name__ == "__main__":
    unittest.main(verbosity=2)
