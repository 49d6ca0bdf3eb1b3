#!/usr/bin/python3
"""Seed the provisioner emulator for bench/run through its control API:
PUT /_emu/sandboxes/{id} for one Running sandbox "bench-alive" and for N
Running sandboxes "bench-list-I", after POST /_emu/reset.

    seed_emulator.py BASE_URL N
"""
import sys

import requests


def put(session, base, sid):
    body = {"sandbox_id": sid, "sandbox_url": f"http://127.0.0.1:9/{sid}",
            "status": "Running", "user_id": "default", "thread_id": sid}
    session.put(f"{base}/_emu/sandboxes/{sid}", json=body, timeout=10).raise_for_status()


def main(argv):
    base, n = argv[1], int(argv[2])
    with requests.Session() as session:
        session.post(f"{base}/_emu/reset", timeout=10).raise_for_status()
        put(session, base, "bench-alive")
        for i in range(n):
            put(session, base, f"bench-list-{i}")


if __name__ == "__main__":
    main(sys.argv)
