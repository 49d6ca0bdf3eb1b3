#!/usr/bin/python3
"""The Python baseline of bench/run: a plain `requests` loop doing the calls
the remote backend does, one requests.Session (keep-alive) per thread.

    py_baseline.py alive  BASE_URL API_KEY COUNT THREADS
    py_baseline.py create BASE_URL API_KEY TAG COUNT THREADS
    py_baseline.py list   BASE_URL API_KEY COUNT

Prints one line in the format of bench_util.h's result line (list adds the
number of sandboxes and the peak memory before and after the loop).
"""
import resource
import sys
import threading
import time

import requests


def run_threads(threads, count, call):
    """Split `count` calls of call(session, thread, index) over `threads`
    threads started together; return (successful calls, seconds)."""
    done = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def worker(t, n):
        with requests.Session() as session:
            barrier.wait()
            for i in range(n):
                call(session, t, i)
                done[t] += 1

    workers = [threading.Thread(target=worker,
                                args=(t, count // threads + (1 if t < count % threads else 0)))
               for t in range(threads)]
    for w in workers:
        w.start()
    barrier.wait()
    start = time.monotonic()
    for w in workers:
        w.join()
    return sum(done), time.monotonic() - start


def report(label, threads, calls, seconds, extra=""):
    rate = calls / seconds if seconds > 0 else 0.0
    us = seconds * 1e6 / calls if calls else 0.0
    print(f"{label} threads={threads} calls={calls} failures=0 seconds={seconds:.6f} "
          f"rate={rate:.1f} us_per_call={us:.2f}{extra}")


def main(argv):
    op, base, key = argv[1], argv[2], argv[3]
    headers = {"X-API-Key": key} if key else {}
    if op == "alive":
        count, threads = int(argv[4]), int(argv[5])

        def alive(session, _t, _i):
            r = session.get(f"{base}/api/sandboxes/bench-alive", headers=headers, timeout=10)
            r.raise_for_status()
            if r.json().get("status") != "Running":
                raise RuntimeError("bench-alive is not Running")

        calls, seconds = run_threads(threads, count, alive)
        report("python alive", threads, calls, seconds)
    elif op == "create":
        tag, count, threads = argv[4], int(argv[5]), int(argv[6])

        def create(session, t, i):
            sid = f"{tag}-{t}-{i}"
            body = {"sandbox_id": sid, "thread_id": sid, "user_id": "default",
                    "required_mount_contract_version": 0, "include_legacy_skills": False,
                    "provision_lark_cli_runtime": False, "provision_lark_cli_broker": False}
            r = session.post(f"{base}/api/sandboxes", json=body, headers=headers, timeout=30)
            r.raise_for_status()
            r.json()

        calls, seconds = run_threads(threads, count, create)
        report("python create", threads, calls, seconds)
    elif op == "list":
        count = int(argv[4])
        entries = [0]

        def listing(session, _t, _i):
            r = session.get(f"{base}/api/sandboxes", headers=headers, timeout=10)
            r.raise_for_status()
            answer = r.json()
            entries[0] = sum(1 for s in answer["sandboxes"]
                             if isinstance(s.get("sandbox_id"), str)
                             and isinstance(s.get("sandbox_url"), str))

        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        calls, seconds = run_threads(1, count, listing)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        report("python list", 1, calls, seconds,
               f" list_count={entries[0]} maxrss_before_kb={rss_before} maxrss_kb={rss}")
    else:
        sys.exit(f"py_baseline.py: unknown operation {op}")


if __name__ == "__main__":
    main(sys.argv)
