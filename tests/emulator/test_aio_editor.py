#!/usr/bin/env python3
"""The emulator's /v1/file/str_replace_editor over real HTTP on 127.0.0.1,
in one local sandbox shared by every case: view (a file, a line range, a
directory), create, str_replace (unique, replace_mode, not found, not
unique), insert and undo_edit, with openhands' output texts; each answer
validated against the AIO OpenAPI schemas transcribed in
aio-schemas-search.json, each request meant valid against its request
schema.

Run by `make check` with EMU_BIN and SBX_TEST_SRCDIR set; needs Debian's
python3-jsonschema.
"""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_aio_routes as base  # noqa: E402

base.add_schemas("aio-schemas-search.json")

ROUTE = "/v1/file/str_replace_editor"


def cat_n(text, first=1):
    return "\n".join("%6d\t%s" % (first + i, line)
                     for i, line in enumerate(text.split("\n"))) + "\n"


class AioEditor(unittest.TestCase):
    emu = None

    @classmethod
    def setUpClass(cls):
        cls.emu = base.Emulator("--aio-api-key", base.KEY)
        cls.routes = base.AioRoutes("call")
        cls.routes.url = cls.emu.create("editor1")
        cls.home = cls.routes.home()

    @classmethod
    def tearDownClass(cls):
        cls.emu.stop()

    def edit(self, invalid=False, **body):
        answer = self.routes.call("POST", ROUTE, body, invalid=invalid)
        return answer.status, answer.json()

    def ok(self, **body):
        status, envelope = self.edit(**body)
        self.assertEqual(status, 200, envelope)
        self.assertTrue(envelope["success"], envelope)
        self.assertIsNone(envelope["data"]["error"])
        return envelope["data"]

    def refused(self, **body):
        status, envelope = self.edit(**body)
        self.assertEqual(status, 200, envelope)
        self.assertFalse(envelope["success"], envelope)
        self.assertEqual(envelope["data"]["error"], envelope["message"])
        return envelope["data"]["error"]

    def file(self, name, content):
        path = self.home + "/" + name
        self.ok(command="create", path=path, file_text=content)
        return path

    def test_view_numbers_lines_as_cat_n(self):
        path = self.file("view.txt", "one\ntwo\nthree\n")
        data = self.ok(command="view", path=path)
        self.assertEqual(data["output"], "Here's the result of running `cat -n` on %s:\n%s"
                         % (path, cat_n("one\ntwo\nthree\n")))
        self.assertTrue(data["prev_exist"])
        self.assertEqual(data["path"], path)
        ranged = self.ok(command="view", path=path, view_range=[2, -1])
        self.assertTrue(ranged["output"].endswith(cat_n("two\nthree\n", 2)), ranged)
        self.assertEqual(self.ok(command="view", path=path, view_range=[2, 2])["output"]
                         .split("\n", 1)[1], cat_n("two", 2))
        self.assertIn("should be within the range of lines of the file: [1, 4]",
                      self.refused(command="view", path=path, view_range=[9, 10]))
        self.assertIn("should be larger or equal than its first",
                      self.refused(command="view", path=path, view_range=[3, 2]))

    def test_view_of_a_directory_lists_two_levels_without_hidden(self):
        d = self.home + "/tree"
        self.routes.exec("mkdir -p tree/a/b tree/.h && touch tree/a/b/c tree/top tree/.h/x")
        out = self.ok(command="view", path=d)["output"]
        self.assertEqual(out.split("\n")[0], "Here's the files and directories up to 2 levels "
                         "deep in %s, excluding hidden items:" % d)
        listed = sorted(out.split("\n")[1:-1])
        self.assertEqual(listed, sorted([d, d + "/a", d + "/a/b", d + "/top"]))
        self.assertIn("not allowed", self.refused(command="view", path=d, view_range=[1, 2]))

    def test_create_refuses_an_existing_file(self):
        path = self.file("made.txt", "first")
        self.assertIn("File already exists at: %s" % path,
                      self.refused(command="create", path=path, file_text="second"))
        self.assertIn("Parameter `file_text` is required",
                      self.refused(command="create", path=self.home + "/none.txt"))
        self.assertEqual(self.routes.download(path).body, b"first")

    def test_str_replace_needs_a_unique_match_unless_a_mode_says(self):
        path = self.file("rep.py", "a = 1\nb = 2\na = 1\nend\n")
        self.assertIn("Multiple occurrences of old_str `a = 1` in lines [1, 3]",
                      self.refused(command="str_replace", path=path, old_str="a = 1",
                                   new_str="x"))
        self.assertIn("did not appear verbatim",
                      self.refused(command="str_replace", path=path, old_str="zzz"))
        data = self.ok(command="str_replace", path=path, old_str="a = 1", new_str="a = 9",
                       replace_mode="LAST")
        self.assertEqual(data["new_content"], "a = 1\nb = 2\na = 9\nend\n")
        self.assertEqual(data["old_content"], "a = 1\nb = 2\na = 1\nend\n")
        self.assertTrue(data["output"].startswith(
            "The file %s has been edited. Here's the result of running `cat -n` on a snippet "
            "of %s:\n" % (path, path)), data)
        self.assertIn(cat_n("a = 1\nb = 2\na = 9\nend\n"), data["output"])
        self.ok(command="str_replace", path=path, old_str="b = 2", new_str="b = 3")
        self.assertEqual(self.routes.download(path).body, b"a = 1\nb = 3\na = 9\nend\n")

    def test_insert_and_undo_edit(self):
        path = self.file("ins.txt", "l1\nl2\n")
        data = self.ok(command="insert", path=path, insert_line=1, new_str="new")
        self.assertEqual(data["new_content"], "l1\nnew\nl2\n")
        self.assertIn("a snippet of the edited file:\n" + cat_n("l1\nnew\nl2\n"),
                      data["output"])
        self.assertIn("[0, 4]", self.refused(command="insert", path=path, insert_line=9,
                                             new_str="x"))
        undone = self.ok(command="undo_edit", path=path)
        self.assertTrue(undone["output"].startswith("Last edit to %s undone successfully. "
                                                    % path), undone)
        self.assertEqual(self.routes.download(path).body, b"l1\nl2\n")
        self.assertEqual(self.refused(command="undo_edit", path=path),
                         "No edit history found for %s." % path)

    def test_bad_requests(self):
        self.assertIn("not an absolute path",
                      self.refused(command="view", path="relative.txt"))
        status, answer = self.edit(invalid=True, command="delete", path="/x")
        self.assertEqual(status, 422, answer)
        status, answer = self.edit(invalid=True, command="view", path="/x", view_range=["a"])
        self.assertEqual(status, 422, answer)
        status, envelope = self.edit(command="view", path=self.home + "/missing.txt")
        self.assertFalse(envelope["success"])
        self.assertEqual(envelope["data"]["error_type"], "not_found", envelope)


if __name__ == "__main__":
    unittest.main(verbosity=2)
