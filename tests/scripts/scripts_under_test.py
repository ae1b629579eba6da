"""How the tests reach scripts/: importing this module puts scripts/ on sys.path (the scripts import
their sibling modules by name), and run() starts a script as a user would, in a fresh interpreter."""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))


def run(script, *args, timeout=120):
    """python3 scripts/<script> args...: the CompletedProcess with text stdout and stderr."""
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), *args], capture_output=True, text=True,
                          timeout=timeout)


class ScratchDirTest(unittest.TestCase):
    """A test case with a fresh temporary directory for its inputs and outputs: self.dir, a path."""

    def setUp(self):
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        self.dir = scratch.name
