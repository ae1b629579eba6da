# Sourced by the device scripts (callK.sh, ab.sh, ablate.sh, old.sh; `grep -l steps.sh` lists them): the steps
# they share.
# gate NAME TIMEOUT BINARY SPEC runs the Catch2 tests SPEC names of a build-dev test binary. Catch2 v2 ORs
# names joined by commas but ANDs separate arguments; "No tests ran" counts as a failure. Prints the
# verdict, returns the rc.
gate() {
  local name=$1 t=$2 bin=$3 spec=$4
  (cd build-dev && timeout $t ./$bin "$spec" > $L/gate_$name.txt 2>&1); local rc=$?
  grep -q "No tests ran" $L/gate_$name.txt && rc=1
  stamp "gate $name rc=$rc"; grep -E "FAILED|with expansion|test cases|passed|failed" $L/gate_$name.txt | head -8; return $rc
}
# runtime_test: ctest's runtime_gpu_test; prints the verdict, returns the rc.
runtime_test() {
  (cd build-dev && timeout 200 ctest -R runtime_gpu_test --output-on-failure > $L/runtime.txt 2>&1); local rc=$?
  stamp "runtime_gpu_test rc=$rc"; grep -E "tests passed|FAILED|failed|with expansion" $L/runtime.txt | head -8; return $rc
}
# measure_into NAME TOKENS KERNELS [BINARY]: `moetune measure` (this build's, or BINARY) of the kernels KERNELS
# matches at TOKENS tokens (with ROUTING, `--routing ROUTING`) into $L/NAME.txt; prints the verdict and the kernels'
# lines.
measure_into() {
  local name=$1 m=$2 kernels=$3 bin=${4:-$B}
  timeout 90 $bin measure --shapes $S --tokens $m --mma fp8 --kernels "$kernels" ${ROUTING:+--routing $ROUTING} \
    > $L/$name.txt 2>&1
  stamp "$name rc=$?"; grep moetune_moe $L/$name.txt
}
# measure_arms TOKS KERNELS: measure_into at each of TOKS (comma-separated) tokens, main's build (PRE=old.sh,
# /tmp/old-build) and this one in turn; a bucket whose two measurements could outlast the call's LIMIT (under 200
# s left) is skipped with a line that says so, so that the logs of those before it come back.
measure_arms() {
  local m
  for m in ${1//,/ }; do
    if [ "$(left)" -lt 200 ]; then stamp "measure_arms: $m tokens and after skipped, $(left) s of LIMIT left"; break; fi
    measure_into measure_old_$m $m "$2" /tmp/old-build/moetune
    measure_into measure_new_$m $m "$2"
  done
}
# wait_old: waits for main's build (PRE=old.sh) and says how it went, the first time it is called.
wait_old() {
  [ -n "${OLD_WAITED:-}" ] && return
  wait $OLD_PID; OLD_WAITED=1; stamp "old built: $(tail -1 $L/build-old.log)"
}
# table_arm NAME BINARY TABLE: /tmp/arm_NAME, an arm for bench_ab.py that runs BINARY's command with --tuned TABLE.
table_arm() {
  printf '#!/bin/sh\ncmd=$1; shift; exec %s "$cmd" --tuned %s "$@"\n' "$(realpath $2)" "$(realpath -m $3)" > /tmp/arm_$1
  chmod +x /tmp/arm_$1
}
# mx_rows_table FROM TO: table FROM with its register-fed rows (1-256 tokens) made stage 1 _fp8 + stage 2 _mxr
# (MXFP8 rows: nothing between the stages; docs/kernel-design.md "MXFP8 rows") written to TO.
mx_rows_table() {
  awk -F, 'BEGIN{OFS=","} NR>1 && $3<=256 {sub(/_nt_wgmma_gui$/, "_nt_wgmma_gui_fp8", $18); sub(/_nt_wgmma$/, "_nt_wgmma_mxr", $21)} {print}' \
    $1 > $2
}
# figures_of_record TABLE: the issue's figures with TABLE: `moetune bench` of all 15 buckets (ROUNDS, default 5;
# ROUTINGS, default 8, each call's experts cold in L2 as a model's are) to $OUT/bench.json, then, where the call's
# LIMIT leaves 40 s, peer_torch.py (the same routings) to $OUT/peer.json and plot_bench.py to $OUT/bench.png and
# $OUT/bench.md. Each file is written as it is made, so a cut call keeps the first.
figures_of_record() {
  timeout 200 $B bench --shapes $S --tuned $1 --tokens 1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384 \
    --rounds ${ROUNDS:-5} --routings ${ROUTINGS:-8} --json $OUT/bench.json > $L/bench.txt 2>&1; stamp "bench rc=$?"
  [ "$(left)" -gt 40 ] || { stamp "figures_of_record: no time left for the peer"; return 1; }
  timeout $(( $(left) - 10 )) python3 scripts/peer_torch.py --shapes $S --routings ${ROUTINGS:-8} --json $OUT/peer.json \
    > $L/peer.txt 2>&1; stamp "peer rc=$?"
  python3 scripts/plot_bench.py --bench $OUT/bench.json --peer $OUT/peer.json -o $OUT/bench.png --markdown $OUT/bench.md \
    > $L/plot.txt 2>&1; stamp "plot rc=$?"
  cat $OUT/bench.md
}
