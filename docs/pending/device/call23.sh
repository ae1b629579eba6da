# Device call 23 (session 51): what the MXFP8-rows pair costs stage by stage. mx_rows_space.patch (PRE=mx_space.sh,
# applied to the device's copy only) puts the register-fed _fp8 stage 1 and _mxr kernels into the space, so that
# `moetune measure` times them (regexes MX_S1, MX_S2) beside their twins at MX_TOKS (stage 1 bf16: the kernel and the plain quantisation
# of its output; _fp8: the kernel alone; stage 2: the kernel alone), then bench_ab.py of the table of record
# against the table with the MXFP8-rows pair at MX_AB_TOKS (call22.sh's table), MX_ROUNDS rounds.
#   PRE=mx_space.sh TARGETS="" STEPS=call23.sh bash docs/pending/device/p.sh
source $D/steps.sh
for m in ${MX_TOKS:-1 2 8 32}; do
  measure_into measure_s1_$m $m "${MX_S1:-moe1_.*_t16x64x(512|1024)_w4_nt_wgmma_(mxr_)?gui(_fp8)?\$|moe1_.*_t16x128x512_nt_wgmma_(mxr_)?gui(_fp8)?\$}"
  measure_into measure_s2_$m $m "${MX_S2:-moe2_.*_t16x128x(256|512)_atomic_nt_wgmma(_mxr)?\$}"
done
MX=$OUT/mx_rows_table.csv
mx_rows_table $TB $MX
table_arm table $B $TB; table_arm mx $B $MX
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm mx=/tmp/arm_mx \
  --rounds ${MX_ROUNDS:-4} --json $OUT/mx_ab.json --markdown $OUT/mx_ab.md -- --shapes $S \
  --tokens ${MX_AB_TOKS:-1,2} --rounds 5 > $L/mx_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/mx_ab.md
