"""scripts/bench_table.py and plot_bench.py's table path: bench and peer JSON matched by shape and
tokens, % of roofline, the markdown, and bad input."""
import functools
import os
import unittest

from scripts_under_test import ScratchDirTest, run
import bench_table
import exit_codes
import synthetic_bench


plot_bench = functools.partial(run, "plot_bench.py")


class BenchTableTest(ScratchDirTest):
    def setUp(self):
        super().setUp()
        self.bench = synthetic_bench.write(self.dir, "bench.json", synthetic_bench.bench_document())
        self.peer = synthetic_bench.write(self.dir, "peer.json", synthetic_bench.peer_document())

    def compare(self, shape_index=0, with_peer=True):
        return bench_table.compare(synthetic_bench.bench_document(), "bench.json",
                                   synthetic_bench.peer_document() if with_peer else None, "peer.json", shape_index)

    def test_buckets_are_matched_by_shape_and_tokens(self):
        key, rows = self.compare()
        self.assertEqual(key, (512, 256, 8, 2))
        self.assertEqual([(r.tokens, r.default_us, r.tuned_us, r.torch_us) for r in rows],
                         [(1, 40.0, 20.0, 100.0), (2, 80.0, None, 100.0), (4, 120.0, 60.0, None)])

    def test_percent_of_roofline_and_ratio_to_torch(self):
        _, rows = self.compare()
        self.assertEqual(rows[0].pct(rows[0].tuned_us), 50.0)
        self.assertEqual(rows[0].pct(rows[0].torch_us), 10.0)  # against the bench's roofline, not the peer's
        self.assertEqual(rows[0].tuned_over_torch(), 0.2)
        self.assertIsNone(rows[1].tuned_over_torch())
        self.assertIsNone(rows[2].tuned_over_torch())

    def test_a_shape_the_peer_lacks_has_no_torch_column(self):
        _, rows = self.compare(shape_index=1)
        self.assertEqual([r.torch_us for r in rows], [None])
        _, rows = self.compare(with_peer=False)
        self.assertEqual([r.torch_us for r in rows], [None, None, None])

    def test_markdown(self):
        key, rows = self.compare()
        table = bench_table.markdown_table(key, rows, "Test GPU")
        self.assertEqual(table.splitlines()[0], "### model_dim 512, inter_dim 256, 8 experts, top-2 (Test GPU)")
        self.assertIn("| 1 | 10.00 | 40.00 | 20.00 | 100.00 | 50.0 % | 0.20 |", table)
        self.assertIn("| 2 | 20.00 | 80.00 | — | 100.00 | — | — |", table)
        self.assertIn("| 4 | 30.00 | 120.00 | 60.00 | — | 50.0 % | — |", table)

    def test_a_shape_index_out_of_range_is_a_usage_error(self):
        with self.assertRaises(exit_codes.ExitError) as caught:
            self.compare(shape_index=2)
        self.assertEqual(caught.exception.code, exit_codes.USAGE)
        self.assertIn("2 shape(s)", str(caught.exception))

    def test_a_bucket_without_roofline_names_where(self):
        bench = synthetic_bench.bench_document()
        del bench["shapes"][0]["buckets"][1]["roofline_us"]
        with self.assertRaises(exit_codes.ExitError) as caught:
            bench_table.compare(bench, "bench.json", None, None, 0)
        self.assertEqual(str(caught.exception), "bench.json: shapes[0].buckets[1]: missing or invalid 'roofline_us'")

    def test_broken_json_names_its_line(self):
        path = os.path.join(self.dir, "broken.json")
        with open(path, "w", encoding="utf-8") as out:
            out.write('{\n  "shapes": [\n    oops\n]}\n')
        with self.assertRaises(exit_codes.ExitError) as caught:
            bench_table.load_json(path)
        self.assertEqual(caught.exception.code, exit_codes.USAGE)
        self.assertTrue(str(caught.exception).startswith(f"{path}:3: "), str(caught.exception))

    def test_plot_bench_prints_and_writes_the_table(self):
        markdown = os.path.join(self.dir, "table.md")
        result = plot_bench("--bench", self.bench, "--peer", self.peer, "--markdown", markdown)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(markdown, encoding="utf-8") as written:
            self.assertEqual(written.read(), result.stdout)
        self.assertIn("| 1 | 10.00 | 40.00 | 20.00 | 100.00 | 50.0 % | 0.20 |", result.stdout)

    def test_plot_bench_exit_codes(self):
        self.assertEqual(plot_bench("--bench", os.path.join(self.dir, "absent.json")).returncode, 2)
        self.assertEqual(plot_bench("--bench", self.bench, "--shape", "5").returncode, 2)
        unwritable = os.path.join(self.dir, "absent", "table.md")
        self.assertEqual(plot_bench("--bench", self.bench, "--markdown", unwritable).returncode, 4)

    def test_a_png_without_matplotlib_fails_and_writes_nothing(self):
        # A matplotlib that cannot be imported comes first on the path, whether the host has one or not.
        os.makedirs(os.path.join(self.dir, "no_matplotlib", "matplotlib"))
        self.write_file(os.path.join("no_matplotlib", "matplotlib", "__init__.py"),
                        'raise ImportError("hidden from this test")\n')
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(self.dir, "no_matplotlib"),
                                                          env.get("PYTHONPATH")]))
        png = os.path.join(self.dir, "plot.png")
        result = plot_bench("--bench", self.bench, "-o", png, env=env)
        self.assertEqual(result.returncode, 1)
        self.assertIn("matplotlib", result.stderr)
        self.assertFalse(os.path.exists(png))


if __name__ == "__main__":
    unittest.main()
