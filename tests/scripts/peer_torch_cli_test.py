"""scripts/peer_torch.py's command line, up to where it needs the GPU: flags, shapes file and output
checks come first, with the project's exit codes, so they hold on any host."""
import functools
import importlib.util
import os
import unittest

from scripts_under_test import ROOT, ScratchDirTest, run

SHAPES = ROOT / "shapes" / "dsv41_flash_ep4_a8w4.csv"


peer = functools.partial(run, "peer_torch.py")


class PeerTorchCliTest(ScratchDirTest):
    def setUp(self):
        super().setUp()
        self.json = os.path.join(self.dir, "peer.json")

    def test_help_needs_no_torch(self):
        result = peer("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("--launches", result.stdout)

    def test_a_bad_flag_is_a_usage_error(self):
        self.assertEqual(peer("--shapes", str(SHAPES), "--json", self.json, "--replays", "0").returncode, 2)
        self.assertEqual(peer("--shapes", str(SHAPES)).returncode, 2)

    def test_a_shape_the_grouped_gemm_cannot_take_names_its_line(self):
        shapes = os.path.join(self.dir, "odd.csv")
        with open(shapes, "w", encoding="utf-8") as out:
            out.write("token,model_dim,inter_dim,expert,topk\n1,5120,2304,96,5\n1,5120,100,8,2\n")
        result = peer("--shapes", shapes, "--json", self.json)
        self.assertEqual(result.returncode, 2)
        self.assertTrue(result.stderr.startswith(f"{shapes}:3: "), result.stderr)
        self.assertIn("multiples of 16", result.stderr)

    def test_routings_outside_1_to_64_are_a_usage_error(self):
        for routings in ("0", "65"):
            result = peer("--shapes", str(SHAPES), "--json", self.json, "--routings", routings)
            self.assertEqual(result.returncode, 2)
            self.assertIn("--routings", result.stderr)

    def test_a_bad_token_list_is_a_usage_error(self):
        result = peer("--shapes", str(SHAPES), "--json", self.json, "--tokens", "1,zero")
        self.assertEqual(result.returncode, 2)
        self.assertIn("--tokens", result.stderr)

    def test_an_unwritable_output_fails_before_measuring(self):
        result = peer("--shapes", str(SHAPES), "--json", os.path.join(self.dir, "absent", "peer.json"))
        self.assertEqual(result.returncode, 4)
        self.assertIn("cannot write", result.stderr)

    @unittest.skipIf(importlib.util.find_spec("torch") is not None, "torch is installed: the run would measure")
    def test_without_torch_it_says_so_and_exits_3(self):
        result = peer("--shapes", str(SHAPES), "--json", self.json)
        self.assertEqual(result.returncode, 3)
        self.assertIn("no usable GPU", result.stderr)
        self.assertFalse(os.path.exists(self.json))


if __name__ == "__main__":
    unittest.main()
