"""scripts/ncu_sass_summary.py on a small page in the layout of `ncu --page source --csv --print-source sass`."""
import json
import os
import unittest

from scripts_under_test import ScratchDirTest, run
import exit_codes
import ncu_sass_summary

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"Instructions Executed","stall_long_sb","stall_wait","stall_selected","stall_long_sb (Not Issued)"\n')
PAGE = ('"Kernel Name","moetune_moe1_example",\n' + HEADER +
        '"0x10","      LDG.E.128 R4, desc[UR4][R2.64]","10","2","1,000","0","2","8","0"\n'
        '"0x20","@!P1  LOP3.LUT R6, R4, 0xff, RZ, 0xc0, !PT","70","60","1,000","60","5","5","55"\n'
        '"0x30","      HMMA.16816.F32.BF16 R8, R4, R6, R8","20","5","2,000","0","15","5","0"\n')


class NcuSassSummaryTest(ScratchDirTest):
    def write(self, text):
        return self.write_file("source.csv", text)

    def assert_page_refused(self, text, at, words):
        """The page is refused with a usage error at FILE (at "") or FILE:LINE (at ":N")."""
        path = self.write(text)
        self.assert_usage_error(lambda: ncu_sass_summary.read_page(path), path + at, words)

    def test_stall_shares_mix_and_hottest_instructions(self):
        summary = ncu_sass_summary.summarize(*ncu_sass_summary.read_page(self.write(PAGE)), top=2)
        self.assertEqual(summary["kernel"], "moetune_moe1_example")
        self.assertEqual(summary["instructions"], 3)
        self.assertEqual(summary["executed_warp_instructions"], 4000)
        self.assertEqual(summary["samples"], 100)
        # Issued reasons only, largest first; the "(Not Issued)" copies are not counted twice.
        self.assertEqual([(s["reason"], s["share"]) for s in summary["stalls"]],
                         [("long_sb", 0.6), ("wait", 0.22), ("selected", 0.18)])
        # Opcodes without predicate and modifiers, weighted by executions.
        self.assertEqual([(m["opcode"], m["share"]) for m in summary["executed_mix"]],
                         [("HMMA", 0.5), ("LDG", 0.25), ("LOP3", 0.25)])
        # The two most sampled, in page order, each with its largest reasons.
        self.assertEqual([h["index"] for h in summary["hottest"]], [1, 2])
        self.assertEqual(summary["hottest"][0]["reasons"][0], {"reason": "long_sb", "samples": 60})
        self.assertEqual(summary["hottest"][1]["sass"], "HMMA.16816.F32.BF16 R8, R4, R6, R8")

    def test_the_command_prints_and_writes_json(self):
        source = self.write(PAGE)
        out = os.path.join(self.dir, "summary.json")
        result = run("ncu_sass_summary.py", source, "--top", "1", "--json", out)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("long_sb", result.stdout)
        self.assertIn("60.0 %", result.stdout)
        with open(out, encoding="utf-8") as written:
            self.assertEqual(len(json.load(written)["hottest"]), 1)

    def test_a_page_without_the_source_header_is_refused(self):
        self.assert_page_refused('"Kernel Name","k",\n"a","b"\n', "", "no header with a 'Source' column")

    def test_a_header_without_samples_is_refused_at_its_line(self):
        self.assert_page_refused('"Kernel Name","k",\n"Address","Source","Instructions Executed"\n"0x0","NOP","1"\n',
                                 ":2", "Warp Stall Sampling (All Samples)")

    def test_a_header_without_instructions_is_refused(self):
        self.assert_page_refused('"Kernel Name","k",\n' + HEADER, ":2", "no instruction lines")

    def test_a_missing_file_is_a_usage_error(self):
        result = run("ncu_sass_summary.py", os.path.join(self.dir, "absent.csv"))
        self.assertEqual(result.returncode, exit_codes.USAGE)
        self.assertIn("absent.csv: cannot read", result.stderr)


if __name__ == "__main__":
    unittest.main()
