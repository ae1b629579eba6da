# Device call 37 (session 62), any card: the sweep's clock recheck on a GPU. `moetune sweep` of SWEEP_TOKENS
# (default 1,32,1024) with its report and debug log, then, per bucket, the SM clocks its timings met, how many
# candidates were timed again and whether that changed the winner (select/clock_recheck.h), the recheck's log
# lines, and sweep_gpu_test (CTEST=0: not).
#   TARGETS="sweep_gpu_test" [SWEEP_TOKENS=…] [CTEST=0] STEPS=call37.sh bash docs/pending/device/p.sh
timeout $(( $(left) - 60 )) $B sweep --shapes $S --tokens ${SWEEP_TOKENS:-1,32,1024} --cache-dir /tmp/kc \
  -o $OUT/sweep.csv --report $OUT/sweep.json --profile-out $L/profile.csv -v > $L/sweep.txt 2>&1
stamp "sweep rc=$?"
python3 - $OUT/sweep.json <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["buckets"]:
    w, c = b["winner"], b.get("sm_clock", {})
    print(f'{b["token"]:>6} {b["status"]:<8} {c.get("low_mhz", 0):.0f}-{c.get("high_mhz", 0):.0f} MHz,',
          f'{c.get("rechecked", 0)} rechecked, winner changed: {c.get("changed_winner")},',
          f'timing {b["timing_wall_s"]:.1f} s:', f'{w["us"]:.2f} us {w["kernelName1"]} + {w["kernelName2"]}' if w else "-")
PY
grep -E "timed again" $L/sweep.txt | cut -c1-300
if [ "${CTEST:-1}" != 0 ]; then
  (cd build-dev && timeout $(( $(left) - 5 )) ctest -R sweep_gpu_test --output-on-failure > $L/sweep_gpu_test.txt 2>&1)
  stamp "sweep_gpu_test rc=$?"; grep -E "tests passed|FAILED|failed|with expansion" $L/sweep_gpu_test.txt | head -8
fi
