#!/usr/bin/python3
"""Write a list answer of N entries to stdout, each shaped like the first
entry of a list answer read from a file (bench/run serves it to measure the
100k list without seeding 100 000 sandboxes into the emulator).

    list_answer.py SAMPLE.json N
"""
import json
import sys


def main(argv):
    with open(argv[1], encoding="utf-8") as f:
        sample = json.load(f)["sandboxes"][0]
    n = int(argv[2])
    out = sys.stdout
    out.write('{"sandboxes": [')
    for i in range(n):
        entry = dict(sample)
        entry["sandbox_id"] = f"bench-list-{i}"
        entry["sandbox_url"] = f"http://127.0.0.1:9/bench-list-{i}"
        if "thread_id" in entry and entry["thread_id"] is not None:
            entry["thread_id"] = f"bench-list-{i}"
        out.write((", " if i else "") + json.dumps(entry))
    out.write(f'], "count": {n}}}')


if __name__ == "__main__":
    main(sys.argv)
