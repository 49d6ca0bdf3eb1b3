"""Start a test server program that announces its address on its first
line of stdout ("PROG listening on URL"), as sbx-provisioner-emu and
sbx-provisiond do; for the Python test suites."""

import os
import select
import subprocess
import time


def start(argv, deadline_s, stderr):
    """Run `argv` (stderr to `stderr`, as subprocess takes it) and read its
    first line: (the process, URL).  Raises RuntimeError, the process
    killed and reaped, when it says no such line within `deadline_s`."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr)
    line = b""
    deadline = time.monotonic() + deadline_s
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stdout.fileno(), 256)
            if not chunk:
                break
            line += chunk
    if b" listening on " not in line:
        proc.kill()
        proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
        raise RuntimeError("%s did not start: %r" % (argv[0], line))
    return proc, line.decode().split(" listening on ")[1].strip()
