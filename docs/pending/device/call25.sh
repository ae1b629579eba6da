# Device call 25 (session 52): split-K across workgroups (_sk) in the register-fed atomic stage 2. Its gate (and
# the reference and long-K cases it joins), then `moetune measure` of the 16-row register-fed stage-2 kernels with
# and without _sk at SK_TOKS, and bench_ab.py of the table of record against the same table with each measured
# bucket's stage 2 the fastest kernel measured here where that is an _sk one (fastest_stage2_table.py), SK_ROUNDS
# rounds at SK_AB_TOKS.
# On the tree of `prep.sh =9` (docs/pending/9-split-k.patch applied):
#   TARGETS="moe_stage_kernels_test" STEPS=call25.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate splitk 400 moe_stage_kernels_test "split-K register-fed stage-2 kernels*,shared-operand kernels match the reference,FP8 warpgroup products keep FP32 sums over a long K"
for m in ${SK_TOKS:-1 2 4 8 16 32}; do
  measure_into measure_s2_$m $m "${SK_S2:-moe2_.*_t16x(64|128|256)x(256|512)_atomic_(w4_|w16_)?nt_wgmma(_sk[236])?\$}"
done
SK=$OUT/sk_table.csv
python3 $D/fastest_stage2_table.py --token _sk $TB $SK $L/measure_s2_*.txt
table_arm table $B $TB; table_arm sk $B $SK
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm sk=/tmp/arm_sk \
  --rounds ${SK_ROUNDS:-3} --json $OUT/sk_ab.json --markdown $OUT/sk_ab.md -- --shapes $S \
  --tokens ${SK_AB_TOKS:-1,2,4,8,16,32} --rounds 5 > $L/sk_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/sk_ab.md
