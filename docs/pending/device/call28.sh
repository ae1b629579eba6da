# Device call 28 (session 53): the sweep charging the pass between the stages (kernels/stage_handoff.h,
# sweep/handoff_passes.h). The GPU tests it touches; a sweep of SWEEP_TOKENS (default 1024,4096) whose report says
# what each winner's pass cost and whether the winners differ from the table of record's rows; then those rows in the
# table of record A/B'd end to end against it (bench_ab.py, both arms on this card).
#   TARGETS="measure_gpu_test sweep_gpu_test runtime_gpu_test" STEPS=call28.sh bash docs/pending/device/p.sh
# CTEST=0 leaves the tests out (after call2.sh, which ran them with the rest of the gpu label).
source $D/steps.sh
if [ "${CTEST:-1}" = 1 ]; then
  (cd build-dev && timeout 300 ctest -R '^(measure_gpu_test|sweep_gpu_test|runtime_gpu_test)$' -j3 --output-on-failure \
    > $L/ctest.log 2>&1); stamp "ctest rc=$?"
  grep -E "tests passed|Test +#|FAILED|failed" $L/ctest.log | tail -6; cp $L/ctest.log $OUT/ctest_handoff.log
fi
source $D/passes_case.sh
TOKS=${SWEEP_TOKENS:-1024,4096}
timeout $(( $(left) - 150 )) $B sweep --shapes $S --tokens $TOKS -o $OUT/sweep.csv --report $OUT/sweep.json \
  --profile-out $L/profile.csv --cache-dir /tmp/kc > $L/sweep.txt 2>&1; stamp "sweep rc=$?"
grep -E "us \(|failed|error" $L/sweep.txt | tail -6
python3 -c "
import json; r = json.load(open('$OUT/sweep.json'))
for b in r['buckets']:
    w = b['winner'] or {}
    print(b['token'], b['status'], w.get('us'), 'us1', w.get('us1'), 'handoff', w.get('handoff_us'), 'passes', b.get('handoff_passes'))
    print('   ', w.get('kernelName1'), '+', w.get('kernelName2'))"
$B merge $TB $OUT/sweep.csv --on-duplicate last -o $L/swept.csv > $L/merge.txt 2>&1; stamp "merge rc=$?"
if [ "$(left)" -gt 100 ]; then
  table_arm record $B $TB; table_arm swept $B $L/swept.csv
  timeout $(( $(left) - 15 )) python3 scripts/bench_ab.py --arm record=/tmp/arm_record --arm swept=/tmp/arm_swept \
    --rounds 3 --json $L/handoff_ab.json --markdown $OUT/handoff_ab.md -- --shapes $S --tokens $TOKS --rounds 5 \
    > $L/handoff_ab.txt 2>&1; stamp "bench_ab rc=$?"; cat $OUT/handoff_ab.md
fi
