#!/usr/bin/env python3
"""The emulator's AIO file search routes (/v1/file/find, glob, grep,
search, and replace) over real HTTP on 127.0.0.1, in one local sandbox whose trees are
built by one exec and shared by every case: each answer is validated
against the AIO OpenAPI schemas transcribed in aio-schemas-search.json,
each request meant valid against its request schema.  Hostile trees (a
symlink loop, symlinks to / and out of the sandbox, 100 000 files, a
100 MiB file, names with newlines) must be answered within the deadline,
never followed out of the sandbox.

Run by `make check` with EMU_BIN and SBX_TEST_SRCDIR set; needs Debian's
python3-jsonschema.
"""

import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_aio_routes as base  # noqa: E402

# The shared helpers (base.AioRoutes.call) validate these routes too.
SCHEMAS = base.add_schemas("aio-schemas-search.json")

# Built in one exec under the sandbox's home: t/ the tree searched,
# many/ 100 000 empty files, huge/ a 100 MiB text file, s2/ a small tree
# with a FIFO.
TREE = r"""
set -e
mkdir -p t/sub/deep t/.hidden many huge
printf 'def alpha():\n    return 1\n' > t/a.py
printf 'ALPHA = 2\nbeta\nalpha three\n' > t/sub/b.py
printf 'one\ntwo\nalpha gamma\nfour\nfive\n' > t/sub/deep/c.txt
printf 'alpha\n' > t/.hidden/h.py
printf 'alpha\n' > "t/new
line.py"
printf 'x(y\n' > t/paren.txt
printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac\n' > t/as.txt
head -c 2097152 /dev/zero | tr '\0' 'a' > t/big.txt
echo alpha >> t/big.txt
ln -s . t/self
ln -s ../.. t/sub/up
ln -s / t/root
ln -s /etc t/etc
cd many && seq 100000 | sed 's/$/.txt/' | xargs touch && cd ..
yes alpha | head -c 104857600 > huge/h.txt
mkdir -p s2/.h
printf 'alpha\n' > s2/a.txt
printf 'alpha\n' > s2/.h/b.txt
mkfifo s2/pipe
ln -s / s2/root
ln -s . s2/self
"""


class AioSearch(unittest.TestCase):
    emu = None
    url = None

    @classmethod
    def setUpClass(cls):
        cls.emu = base.Emulator("--aio-api-key", base.KEY)
        cls.url = cls.emu.create("search1")
        cls.routes = base.AioRoutes("call")
        cls.routes.url = cls.url
        done = cls.routes.exec(TREE)
        if done["exit_code"] != 0:
            raise RuntimeError("tree not built: %r" % done)
        cls.home = cls.routes.home()
        cls.t = cls.home + "/t"

    @classmethod
    def tearDownClass(cls):
        cls.emu.stop()

    def post(self, route, body, invalid=False):
        """POST `body` (checked against the request schema), the answer
        checked against the route's answer schemas: (status, JSON)."""
        answer = self.routes.call("POST", route, body, invalid=invalid)
        self.assertIn(str(answer.status), SCHEMAS["routes"]["POST " + route]["responses"],
                      answer.body)
        return answer.status, answer.json()

    def ok(self, route, body):
        status, envelope = self.post(route, body)
        self.assertEqual(status, 200)
        self.assertTrue(envelope["success"], envelope)
        return envelope["data"]

    def failed(self, route, body, error_type):
        status, envelope = self.post(route, body)
        self.assertEqual(status, 200)
        self.assertFalse(envelope["success"], envelope)
        self.assertEqual(envelope["data"]["error_type"], error_type, envelope)
        return envelope["data"]

    def unprocessable(self, route, body, field, schema_invalid=True):
        status, answer = self.post(route, body, invalid=schema_invalid)
        self.assertEqual(status, 422, answer)
        self.assertIn(["body", field], [e["loc"] for e in answer["detail"]], answer)

    def rel(self, paths):
        return sorted(p[len(self.t) + 1:] for p in paths)

    # ------------------------------------------------------------ find

    def test_find_matches_names_at_any_depth_never_through_symlinks(self):
        data = self.ok("/v1/file/find", {"path": self.t, "glob": "*.py"})
        self.assertEqual(data["path"], self.t)
        self.assertEqual(self.rel(data["files"]),
                         [".hidden/h.py", "a.py", "new\nline.py", "sub/b.py"])

    def test_find_with_directories_in_the_glob(self):
        self.assertEqual(self.rel(self.ok("/v1/file/find",
                                          {"path": self.t, "glob": "sub/*.py"})["files"]),
                         ["sub/b.py"])
        self.assertEqual(self.rel(self.ok("/v1/file/find",
                                          {"path": self.t, "glob": "**/deep/*"})["files"]),
                         ["sub/deep/c.txt"])

    def test_find_outside_the_sandbox_is_refused(self):
        for path in ("/etc", self.t + "/root", self.t + "/etc", self.t + "/sub/up/.."):
            self.failed("/v1/file/find", {"path": path, "glob": "*"}, "invalid_path")
        self.failed("/v1/file/find", {"path": self.t + "/nope", "glob": "*"}, "not_found")
        self.unprocessable("/v1/file/find", {"path": self.t}, "glob")

    def test_find_in_100000_files_is_bounded(self):
        start = time.monotonic()
        data = self.ok("/v1/file/find", {"path": self.home + "/many", "glob": "9999*.txt"})
        self.assertEqual(len(data["files"]), 11)
        self.assertLess(time.monotonic() - start, base.DEADLINE_S)

    # ------------------------------------------------------------ grep

    def grep(self, **fields):
        return self.ok("/v1/file/grep", dict({"path": self.t}, **fields))

    def found(self, data):
        return sorted((m["file"][len(self.t) + 1:], m["line_number"], m["line_content"])
                      for m in data["matches"])

    def test_grep_regex_skips_hidden_large_and_symlinked_files(self):
        data = self.grep(pattern=r"^alpha\b")
        self.assertEqual(self.found(data),
                         [("new\nline.py", 1, "alpha"), ("sub/b.py", 3, "alpha three"),
                          ("sub/deep/c.txt", 3, "alpha gamma")])
        self.assertEqual(data["pattern"], r"^alpha\b")
        self.assertEqual(data["match_count"], 3)
        self.assertEqual(data["files_matched"], 3)
        self.assertFalse(data["truncated"])
        self.assertGreaterEqual(data["files_searched"], 5)

    def test_grep_walked_by_grep_itself_never_through_symlinks(self):
        # No file above max_file_size: grep -r walks, from inside the tree
        # (the names it prints joined to the path), skipping hidden names
        # below the path but not a path below a hidden directory, and
        # following none of t's symlinks (., ../.., /, /etc).
        data = self.grep(pattern="alpha", max_file_size="3M")
        self.assertEqual([f for f, _, _ in self.found(data)],
                         ["a.py", "big.txt", "new\nline.py", "sub/b.py", "sub/deep/c.txt"])
        self.assertEqual(data["files_searched"], 7)
        self.assertEqual(data["files_matched"], 5)
        data = self.grep(path=self.t + "/sub/", pattern="alpha", context_after=1)
        self.assertEqual(sorted((m["file"], m["line_number"], m["context_after"])
                                for m in data["matches"]),
                         [(self.t + "/sub/b.py", 3, []),
                          (self.t + "/sub/deep/c.txt", 3, ["four"])])
        self.assertEqual(data["files_searched"], 2)
        data = self.grep(path=self.t + "/.hidden", pattern="alpha")
        self.assertEqual([(m["file"], m["line_number"]) for m in data["matches"]],
                         [(self.t + "/.hidden/h.py", 1)])
        # grep -r refusing the pattern: the same failure as the other walk.
        data = self.failed("/v1/file/grep", {"path": self.t + "/sub", "pattern": "a(b"},
                           "invalid_argument")
        self.assertIn("a(b", data["message"])
        self.assertNotIn("%", data["message"])

    def test_grep_of_a_small_tree_skips_a_fifo_symlinks_and_large_files(self):
        # A tree small enough for grep -r to search alone (no shell): the
        # FIFO never opened, no symlink followed, hidden names skipped, and
        # a file above max_file_size never searched.
        s2 = self.home + "/s2"
        start = time.monotonic()
        data = self.grep(path=s2, pattern="alpha")
        self.assertEqual([(m["file"], m["line_number"], m["line_content"])
                          for m in data["matches"]], [(s2 + "/a.txt", 1, "alpha")])
        self.assertEqual((data["files_searched"], data["files_matched"]), (1, 1))
        data = self.grep(path=s2, pattern="alpha", max_file_size="5")
        self.assertEqual((data["matches"], data["files_searched"]), ([], 0))
        data = self.grep(path=s2 + "/", pattern="alpha", context_before=1)
        self.assertEqual([(m["file"], m["context_before"]) for m in data["matches"]],
                         [(s2 + "/a.txt", [])])
        self.assertLess(time.monotonic() - start, base.DEADLINE_S)

    def test_grep_literal_and_case(self):
        self.assertEqual(self.found(self.grep(pattern="x(y", fixed_strings=True)),
                         [("paren.txt", 1, "x(y")])
        self.assertEqual(len(self.grep(pattern="alpha", case_insensitive=True)["matches"]), 5)
        self.assertEqual(len(self.grep(pattern="alpha")["matches"]), 4)

    def test_grep_include_exclude_and_type_filters(self):
        self.assertEqual(self.found(self.grep(pattern="alpha", include=["*.txt"])),
                         [("sub/deep/c.txt", 3, "alpha gamma")])
        self.assertEqual(self.found(self.grep(pattern="alpha", type="py", exclude=["sub"])),
                         [("a.py", 1, "def alpha():"), ("new\nline.py", 1, "alpha")])
        self.unprocessable("/v1/file/grep", {"path": self.t, "pattern": "a", "type": "nope"},
                           "type", schema_invalid=False)

    def test_grep_context_lines(self):
        (match,) = self.grep(pattern="gamma", context_before=2, context_after=1)["matches"]
        self.assertEqual(match["context_before"], ["one", "two"])
        self.assertEqual(match["context_after"], ["four"])

    def test_grep_offset_max_results_and_max_file_size(self):
        whole = self.grep(pattern="alpha", max_file_size="3M")
        self.assertIn("big.txt", [m["file"].rsplit("/", 1)[1] for m in whole["matches"]])
        first = self.grep(pattern="alpha", max_results=2)
        self.assertEqual(len(first["matches"]), 2)
        self.assertTrue(first["truncated"])
        rest = self.grep(pattern="alpha", offset=2, max_results=10)
        self.assertFalse(rest["truncated"])
        self.assertEqual(len(rest["matches"]), 2)
        for field, value in (("max_results", 0), ("context_before", 21), ("offset", -1)):
            self.unprocessable("/v1/file/grep",
                               {"path": self.t, "pattern": "a", field: value}, field)
        self.unprocessable("/v1/file/grep",
                           {"path": self.t, "pattern": "a", "max_file_size": "lots"},
                           "max_file_size", schema_invalid=False)

    def test_grep_invalid_and_exponential_patterns_are_bounded(self):
        data = self.failed("/v1/file/grep", {"path": self.t, "pattern": "a(b"},
                           "invalid_argument")
        self.assertIn("a(b", data["message"])
        start = time.monotonic()
        self.grep(pattern="(a|aa)*(a|aa)*(a|aa)*b")
        self.grep(pattern="(a*)*$x")
        self.assertLess(time.monotonic() - start, base.DEADLINE_S)

    def test_grep_of_a_100_mib_file_stops_at_the_cap(self):
        start = time.monotonic()
        data = self.ok("/v1/file/grep", {"path": self.home + "/huge", "pattern": "alpha",
                                         "max_file_size": "1G", "max_results": 10000})
        self.assertEqual(len(data["matches"]), 10000)
        self.assertTrue(data["truncated"])
        self.assertLess(time.monotonic() - start, base.DEADLINE_S)

    def test_grep_outside_the_sandbox_is_refused(self):
        for path in ("/etc", self.t + "/root", self.t + "/etc/passwd"):
            self.failed("/v1/file/grep", {"path": path, "pattern": "root"}, "invalid_path")

    # ------------------------------------------------------------ glob

    def test_glob_is_anchored_at_the_base(self):
        data = self.ok("/v1/file/glob", {"path": self.t, "pattern": "*.py"})
        self.assertEqual([f["name"] for f in data["files"]], ["a.py", "new\nline.py"])
        self.assertEqual(data["total_count"], 2)
        deep = self.ok("/v1/file/glob", {"path": self.t, "pattern": "**/*.py",
                                         "include_hidden": True})
        self.assertEqual(self.rel(f["path"] for f in deep["files"]),
                         [".hidden/h.py", "a.py", "new\nline.py", "sub/b.py"])
        self.assertTrue(all(f["size"] > 0 and f["modified_time"] for f in deep["files"]))

    def test_glob_directories_sorting_and_cap(self):
        dirs = self.ok("/v1/file/glob", {"path": self.t, "pattern": "*", "files_only": False,
                                         "include_metadata": False})
        names = {f["name"]: f["is_directory"] for f in dirs["files"]}
        self.assertTrue(names["sub"])
        self.assertFalse(names["a.py"])
        self.assertIsNone(dirs["files"][0]["size"])
        biggest = self.ok("/v1/file/glob", {"path": self.t, "pattern": "**", "sort_by": "size",
                                            "sort_desc": True, "max_results": 1})
        self.assertEqual([f["name"] for f in biggest["files"]], ["big.txt"])
        self.assertTrue(biggest["truncated"])
        self.unprocessable("/v1/file/glob", {"path": self.t, "pattern": "*",
                                             "max_results": 50001}, "max_results")

    # ------------------------------------------------------------ search

    def test_search_in_one_file(self):
        data = self.ok("/v1/file/search", {"file": self.t + "/sub/b.py", "regex": "(?i)alpha"})
        self.assertEqual(data["matches"], ["ALPHA = 2", "alpha three"])
        self.assertEqual(data["line_numbers"], [1, 3])
        self.failed("/v1/file/search", {"file": self.t + "/etc/passwd", "regex": "root"},
                    "invalid_path")

    # ------------------------------------------------------------ replace

    def test_replace_every_occurrence(self):
        path = self.home + "/r.txt"
        self.routes.ok("POST", "/v1/file/write", {"file": path, "content": "a-b a-b\na-b"})
        self.assertEqual(self.ok("/v1/file/replace", {"file": path, "old_str": "a-b",
                                                      "new_str": "\u00e9"}),
                         {"file": path, "replaced_count": 3})
        self.assertEqual(self.routes.ok("POST", "/v1/file/read", {"file": path})["content"],
                         "\u00e9 \u00e9\n\u00e9")
        self.assertEqual(self.ok("/v1/file/replace", {"file": path, "old_str": "zz",
                                                      "new_str": "y"})["replaced_count"], 0)
        self.unprocessable("/v1/file/replace", {"file": path, "old_str": "", "new_str": "y"},
                           "old_str", schema_invalid=False)
        self.unprocessable("/v1/file/replace", {"file": path, "old_str": "a"}, "new_str")
        self.failed("/v1/file/replace", {"file": self.t + "/etc/passwd", "old_str": "root",
                                         "new_str": "x"}, "invalid_path")
        self.failed("/v1/file/replace", {"file": self.home + "/nope", "old_str": "a",
                                         "new_str": "b"}, "not_found")


if __name__ == "__main__":
    unittest.main()
