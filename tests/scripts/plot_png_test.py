"""scripts/plot_bench.py's PNG: written, a PNG, with a tuned arm that lacks a bucket and a torch arm
that lacks one. Needs matplotlib: run as a script it exits 77 (ctest: skipped) where it is absent."""
import importlib.util
import os
import sys
import tempfile
import unittest

from scripts_under_test import run
import synthetic_bench

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SKIP = 77


class PlotPngTest(unittest.TestCase):
    def test_the_png_is_written(self):
        with tempfile.TemporaryDirectory() as directory:
            bench = synthetic_bench.write(directory, "bench.json", synthetic_bench.bench_document())
            peer = synthetic_bench.write(directory, "peer.json", synthetic_bench.peer_document())
            png = os.path.join(directory, "plot.png")
            result = run("plot_bench.py", "--bench", bench, "--peer", peer, "-o", png)
            self.assertEqual(result.returncode, 0, result.stderr)
            with open(png, "rb") as written:
                self.assertEqual(written.read(len(PNG_SIGNATURE)), PNG_SIGNATURE)
            self.assertEqual([name for name in os.listdir(directory) if name.startswith(".")], [])  # no temp left


if __name__ == "__main__":
    if importlib.util.find_spec("matplotlib") is None:
        print("skipped: matplotlib is not installed", file=sys.stderr)
        sys.exit(SKIP)
    unittest.main()
