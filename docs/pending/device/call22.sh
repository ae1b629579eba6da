# Device call 22 (session 51): the register-fed kernels on MXFP8 rows (_mxr) and the register-fed stage 1's
# fused MXFP8 epilogue (_fp8), on the working tree (no PARTS): their gate, the register-fed cases they share
# the loop with, runtime_gpu_test (buckets 2 and 4 run them), then bench_ab.py of the table of record against
# the same table with its register-fed rows (1-256 tokens) made _fp8 + _mxr: no pass between the stages.
# MX_GATES=0 leaves the tests out (then TARGETS=""); MX_TOKS, MX_ROUNDS: the bench's buckets and rounds.
#   TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call22.sh bash docs/pending/device/p.sh
source $D/steps.sh
if [ "${MX_GATES:-1}" != 0 ]; then
  gate mxr 300 moe_stage_kernels_test "the register-fed stage 1*,shared-operand kernels match the reference,FP8 warpgroup products keep FP32 sums over a long K"
  runtime_test
fi
MX=$OUT/mx_rows_table.csv
mx_rows_table $TB $MX
grep -c "_mxr" $MX
table_arm table $B $TB; table_arm mx $B $MX
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm mx=/tmp/arm_mx \
  --rounds ${MX_ROUNDS:-3} --json $OUT/mx_ab.json --markdown $OUT/mx_ab.md -- --shapes $S \
  --tokens ${MX_TOKS:-1,2,4,8,16,32,64,128,256} --rounds 5 > $L/mx_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/mx_ab.md
