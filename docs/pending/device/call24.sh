# Device call 24 (session 51): routed rows in stage 1 (the register-fed stage 1 finds its rows in the routing at
# 1-3 tokens and does not wait for the sort) beside MXFP8 rows, against main before session 51 (old.sh with
# REVERSE=docs/pending/device/session51_code.patch: the session's code reverse-applied). Gates, runtime_gpu_test,
# then bench_ab.py: main with the table of record, this tree with it, and this tree with call22.sh's MXFP8-rows table.
#   PRE=old.sh REVERSE=docs/pending/device/session51_code.patch TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call24.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate routed 300 moe_stage_kernels_test "register-fed stage-1 kernels given the routing*,the register-fed stage 1*,shared-operand kernels match the reference"
runtime_test
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
MX=$OUT/mx_rows_table.csv
mx_rows_table $TB $MX
wait_old
table_arm main /tmp/old-build/moetune $TB; table_arm routed $B $TB; table_arm routed_mx $B $MX
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm main=/tmp/arm_main --arm routed=/tmp/arm_routed \
  --arm routed_mx=/tmp/arm_routed_mx --rounds ${R_ROUNDS:-3} --json $OUT/routed_ab.json --markdown $OUT/routed_ab.md \
  -- --shapes $S --tokens ${R_TOKS:-1,2,4,8} --rounds 5 > $L/routed_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/routed_ab.md
