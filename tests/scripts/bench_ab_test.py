"""scripts/bench_ab.py against stand-in moetune binaries: the alternated order, the table of rounds
and medians, the kept JSON, and the refusals."""
import json
import os
import stat
import sys
import unittest

from scripts_under_test import ScratchDirTest, run
import bench_ab
import exit_codes
import synthetic_bench

# A stand-in for `moetune bench`: appends its name to order.log, counts its calls, and writes the
# synthetic bench document with every tuned time set to BASE + the call number (so its rounds give
# BASE + 1, + 2, + 3) to the path after --json. FAIL=1 makes it exit 3 with a message.
STAND_IN = """#!{python}
import json, os, sys
sys.path.insert(0, {tests!r})
import synthetic_bench
here = os.path.dirname(os.path.abspath(__file__))
name = os.path.basename(__file__)
if {fail}:
    print("moetune: no GPU found", file=sys.stderr)
    sys.exit(3)
assert sys.argv[1] == "bench" and sys.argv[2:4] == ["--shapes", "S.csv"], sys.argv
with open(os.path.join(here, "order.log"), "a") as log:
    log.write(name + "\\n")
count_path = os.path.join(here, name + ".count")
count = (int(open(count_path).read()) if os.path.exists(count_path) else 0) + 1
open(count_path, "w").write(str(count))
document = synthetic_bench.bench_document()
for shape in document["shapes"]:
    for bucket in shape["buckets"]:
        if bucket["tuned"] is not None:
            bucket["tuned"]["us"] = {base} + count
json.dump(document, open(sys.argv[sys.argv.index("--json") + 1], "w"))
"""


class BenchAbTest(ScratchDirTest):
    def stand_in(self, name, base, fail=False):
        path = self.write_file(name, STAND_IN.format(python=sys.executable, tests=os.path.dirname(__file__),
                                                     fail=fail, base=base))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def order(self):
        with open(os.path.join(self.dir, "order.log"), encoding="utf-8") as log:
            return log.read().split()

    def test_rounds_alternate_the_first_arm_and_the_table_has_rounds_and_medians(self):
        a, b = self.stand_in("main", 100), self.stand_in("new", 90)
        out = os.path.join(self.dir, "ab.json")
        md = os.path.join(self.dir, "ab.md")
        done = run("bench_ab.py", "--arm", f"main={a}", "--arm", f"new={b}", "--json", out, "--markdown", md,
                   "--", "--shapes", "S.csv", "--rounds", "5")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(self.order(), ["main", "new", "new", "main", "main", "new"])
        self.assertIn("bench_ab: round 3/3, new done (6/6 runs", done.stderr)
        lines = done.stdout.splitlines()
        self.assertEqual(lines[0], "### model_dim 512, inter_dim 256, 8 experts, top-2 (Test GPU; tuned arm, "
                                   "µs per round)")
        self.assertEqual(lines[2], "| tokens | main | new | new − main (medians) |")
        self.assertIn("| 1 | 101.0 / 102.0 / 103.0 | 91.0 / 92.0 / 93.0 | -10.0 (-9.8 %) |", lines)
        self.assertIn("| 2 | — / — / — | — / — / — | — |", lines)  # no tuned row at 2 tokens
        self.assertIn("### model_dim 1024, inter_dim 256, 8 experts, top-2 (Test GPU; tuned arm, µs per round)", lines)
        with open(md, encoding="utf-8") as written:
            self.assertEqual(written.read(), done.stdout)
        with open(out, encoding="utf-8") as kept:
            document = json.load(kept)
        self.assertEqual([(r["arm"], r["round"]) for r in document["runs"]],
                         [("main", 1), ("new", 1), ("new", 2), ("main", 2), ("main", 3), ("new", 3)])
        self.assertEqual(document["bench_args"], ["--shapes", "S.csv", "--rounds", "5"])
        self.assertEqual(document["runs"][0]["bench"]["shapes"][0]["buckets"][1]["tuned"]["us"], 101)

    def test_a_second_command_with_the_same_json_resumes(self):
        a, b = self.stand_in("main", 100), self.stand_in("new", 90)
        out = os.path.join(self.dir, "ab.json")
        argv = ["--arm", f"main={a}", "--arm", f"new={b}", "--json", out, "--", "--shapes", "S.csv"]
        self.assertEqual(run("bench_ab.py", *argv).returncode, 0)
        with open(out, encoding="utf-8") as kept:
            document = json.load(kept)
        document["runs"] = document["runs"][:4]  # as if killed during round 3
        with open(out, "w", encoding="utf-8") as kept:
            json.dump(document, kept)
        done = run("bench_ab.py", *argv)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("resuming", done.stderr)
        self.assertEqual(self.order(), ["main", "new", "new", "main", "main", "new", "main", "new"])
        self.assertIn("| 1 | 101.0 / 102.0 / 104.0 | 91.0 / 92.0 / 94.0 | -10.0 (-9.8 %) |", done.stdout)
        with open(out, encoding="utf-8") as kept:
            self.assertEqual(len(json.load(kept)["runs"]), 6)
        other = run("bench_ab.py", "--arm", f"main={a}", "--arm", f"new={b}", "--json", out, "--", "--shapes", "T.csv")
        self.assertEqual(other.returncode, exit_codes.USAGE)
        self.assertIn("holds another A/B", other.stderr)

    def test_the_default_field_and_three_arms(self):
        arms = [self.stand_in(name, base) for name, base in (("a", 10), ("b", 20), ("c", 5))]
        done = run("bench_ab.py", "--rounds", "1", "--field", "default", *[f"--arm={n}={p}" for n, p in
                                                                              zip("abc", arms)],
                   "--", "--shapes", "S.csv")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("| tokens | a | b | c | b − a (medians) | c − a (medians) |", done.stdout)
        # The stand-ins change only the tuned arm: default times are equal across arms.
        self.assertIn("| 1 | 40.0 | 40.0 | 40.0 | +0.0 (+0.0 %) | +0.0 (+0.0 %) |", done.stdout)

    def test_a_failed_run_names_arm_round_and_its_message(self):
        good, bad = self.stand_in("main", 100), self.stand_in("broken", 0, fail=True)
        done = run("bench_ab.py", "--arm", f"main={good}", "--arm", f"broken={bad}", "--", "--shapes", "S.csv")
        self.assertEqual(done.returncode, exit_codes.FAILED)
        self.assertIn("broken round 1: moetune bench exited 3: moetune: no GPU found", done.stderr)

    def test_refusals(self):
        a = self.stand_in("main", 100)
        cases = [
            (["--arm", f"main={a}", "--", "--shapes", "S.csv"], "at least two arms"),
            (["--arm", f"main={a}", "--arm", f"main={a}", "--", "--shapes", "S.csv"], "repeated name"),
            (["--arm", f"main={a}", "--arm", "new=/no/such/moetune", "--", "--shapes", "S.csv"],
             "/no/such/moetune is not an executable file"),
            (["--arm", f"main={a}", "--arm", f"new{a}", "--", "--shapes", "S.csv"], "expected NAME=BINARY"),
            (["--arm", f"main={a}", "--arm", f"new={a}"], "no bench arguments"),
            (["--arm", f"main={a}", "--arm", f"new={a}", "--", "--shapes", "S.csv", "--json", "x.json"],
             "sets each run's --json itself"),
            (["--arm", f"main={a}", "--arm", f"new={a}", "--rounds", "0", "--", "--shapes", "S.csv"],
             "must be at least 1"),
        ]
        for argv, words in cases:
            with self.subTest(words=words):
                with self.assertRaises(exit_codes.ExitError) as caught:
                    bench_ab.parse_args(argv)
                self.assertEqual(caught.exception.code, exit_codes.USAGE)
                self.assertIn(words, str(caught.exception))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "order.log")))  # nothing ran

    def test_an_unwritable_output_is_refused_before_any_run(self):
        a, b = self.stand_in("main", 100), self.stand_in("new", 90)
        done = run("bench_ab.py", "--arm", f"main={a}", "--arm", f"new={b}", "--json", "/no/such/dir/ab.json",
                   "--", "--shapes", "S.csv")
        self.assertEqual(done.returncode, exit_codes.CANNOT_WRITE)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "order.log")))


if __name__ == "__main__":
    unittest.main()
