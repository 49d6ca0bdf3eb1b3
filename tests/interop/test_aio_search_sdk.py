#!/usr/bin/env python3
"""The AIO file search routes (/v1/file/find, grep, glob, search) of the
emulator and of sbx-provisiond (local backend), driven by the AIO
sandbox's own Python SDK (its pydantic models parse every answer), and
DeerFlow's AioSandbox glob and grep tools over them when SBX_DEERFLOW_SRC
names DeerFlow's sources.  One sandbox and one tree per server, shared by
the cases.  Run by test_aio_search_sdk.sh (which skips without the SDK).
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_aio_sdk as sdk_test  # noqa: E402

# A tree of the sandbox's home: built by one command.
TREE = r"""
rm -rf s && mkdir -p s/pkg/deep s/.git s/docs
printf 'def alpha():\n    return "Alpha"\n' > s/pkg/a.py
printf 'import os\nALPHA = 1  # alpha\n' > s/pkg/deep/b.py
printf 'alpha notes\nx(y) literal\n' > s/docs/n.md
printf 'alpha\n' > s/.git/HEAD
ln -s / s/pkg/root
for i in 1 2 3 4 5 6 7 8; do echo "alpha $i" > s/docs/m$i.txt; done
"""


class SdkSearch:
    """The SDK's search calls against one server (the subclass says which)."""

    program = None

    @classmethod
    def setUpClass(cls):
        cls.server = sdk_test.Server(cls.program)
        cls.url = cls.server.create("search1")
        cls.client = sdk_test.sdk_client(cls.url)
        cls.sdk = cls.client.__enter__()
        cls.home = cls.sdk.sandbox.get_context().home_dir
        done = cls.sdk.bash.exec(command=TREE)
        assert done.data.exit_code == 0, done
        cls.root = cls.home + "/s"

    @classmethod
    def tearDownClass(cls):
        cls.client.__exit__(None, None, None)
        cls.server.stop()

    def test_find_files(self):
        answer = self.sdk.file.find_files(path=self.root, glob="*.py")
        self.assertTrue(answer.success, answer.message)
        self.assertEqual(sorted(answer.data.files),
                         [self.root + "/pkg/a.py", self.root + "/pkg/deep/b.py"])

    def test_grep_files(self):
        answer = self.sdk.file.grep_files(path=self.root, pattern=r"ALPHA\s*=",
                                          include=["*.py"])
        self.assertTrue(answer.success, answer.message)
        (match,) = answer.data.matches
        self.assertEqual((match.file, match.line_number, match.line_content),
                         (self.root + "/pkg/deep/b.py", 2, "ALPHA = 1  # alpha"))
        self.assertFalse(answer.data.truncated)

    def test_grep_files_invalid_regex_is_an_operation_error(self):
        answer = self.sdk.file.grep_files(path=self.root, pattern="(")
        self.assertFalse(answer.success)
        self.assertEqual(answer.data.error_type, "invalid_argument")

    def test_glob_files(self):
        answer = self.sdk.file.glob_files(path=self.root, pattern="docs/*.md")
        self.assertTrue(answer.success, answer.message)
        self.assertEqual([f.name for f in answer.data.files], ["n.md"])

    def test_search_in_file(self):
        answer = self.sdk.file.search_in_file(file=self.root + "/docs/n.md", regex=r"x\(y\)")
        self.assertTrue(answer.success, answer.message)
        self.assertEqual(answer.data.line_numbers, [2])


class DeerFlowSearch:
    """DeerFlow's AioSandbox glob and grep over one server."""

    program = None

    @classmethod
    def setUpClass(cls):
        aio_sandbox, why = sdk_test.deerflow_class()
        if aio_sandbox is None:
            raise unittest.SkipTest(why)
        cls.server = sdk_test.Server(cls.program)
        cls.box = aio_sandbox("dfs1", cls.server.create("dfs1"))
        cls.box.execute_command(TREE)
        cls.root = cls.box.home_dir + "/s"

    @classmethod
    def tearDownClass(cls):
        cls.box.close()
        cls.server.stop()

    def rel(self, paths):
        return sorted(p[len(self.root) + 1:] for p in paths)

    def grep(self, pattern, **kw):
        matches, truncated = self.box.grep(self.root, pattern, **kw)
        return sorted((m.path[len(self.root) + 1:], m.line_number, m.line)
                      for m in matches), truncated

    def test_glob_without_directories(self):
        matches, truncated = self.box.glob(self.root, "**/*.py")
        self.assertEqual(self.rel(matches), ["pkg/a.py", "pkg/deep/b.py"])
        self.assertFalse(truncated)
        matches, truncated = self.box.glob(self.root, "*.txt", max_results=3)
        self.assertEqual(len(matches), 3)
        self.assertTrue(truncated)

    def test_glob_with_directories(self):
        matches, _ = self.box.glob(self.root, "pkg/*", include_dirs=True)
        self.assertEqual(self.rel(matches), ["pkg/a.py", "pkg/deep", "pkg/root"])

    def test_grep_regex_and_case(self):
        self.assertEqual(self.grep(r"^ALPHA\b", case_sensitive=True),
                         ([("pkg/deep/b.py", 2, "ALPHA = 1  # alpha")], False))
        found, _ = self.grep(r"alpha", glob="**/*.py")
        self.assertEqual(found, [("pkg/a.py", 1, "def alpha():"),
                                 ("pkg/a.py", 2, '    return "Alpha"'),
                                 ("pkg/deep/b.py", 2, "ALPHA = 1  # alpha")])

    def test_grep_literal(self):
        self.assertEqual(self.grep("x(y)", literal=True),
                         ([("docs/n.md", 2, "x(y) literal")], False))

    def test_grep_with_a_glob_filter_and_truncation(self):
        found, truncated = self.grep("alpha", glob="docs/*.txt", max_results=3)
        self.assertEqual(len(found), 3)
        self.assertTrue(truncated)
        self.assertTrue(all(f.startswith("docs/m") for f, _, _ in found))


class EmulatorSdkSearch(SdkSearch, unittest.TestCase):
    program = staticmethod(sdk_test.emulator)


class ProvisiondSdkSearch(SdkSearch, unittest.TestCase):
    program = staticmethod(sdk_test.provisiond)


class EmulatorDeerFlowSearch(DeerFlowSearch, unittest.TestCase):
    program = staticmethod(sdk_test.emulator)


class ProvisiondDeerFlowSearch(DeerFlowSearch, unittest.TestCase):
    program = staticmethod(sdk_test.provisiond)


if __name__ == "__main__":
    unittest.main(verbosity=2)
