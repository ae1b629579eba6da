"""How the tests reach scripts/: importing this module puts scripts/ on sys.path (the scripts import
their sibling modules by name), and run() starts a script as a user would, in a fresh interpreter."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import exit_codes  # noqa: E402 (from scripts/, on the path only from here)


def run(script, *args, timeout=120, env=None):
    """python3 scripts/<script> args...: the CompletedProcess with text stdout and stderr (env: the
    environment, default this process's)."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


class ScratchDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory for its inputs and outputs: self.dir, a path."""

    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.dir = scratch.name

    def write_file(self, name, text):
        """Writes text (UTF-8) to self.dir/name; returns the path."""
        path = str(Path(self.dir) / name)
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
        return path

    def assert_usage_error(self, call, where, words):
        """call() must raise exit_codes.ExitError with the usage code, a message starting with
        `where: ` (FILE or FILE:LINE) and containing words."""
        with self.assertRaises(exit_codes.ExitError) as caught:
            call()
        self.assertEqual(caught.exception.code, exit_codes.USAGE)
        self.assertTrue(str(caught.exception).startswith(where + ": "), str(caught.exception))
        self.assertIn(words, str(caught.exception))
