# Device call 34 (session 57): K-groups in the register-fed stage 1 (_kw2: two teams of 4 warps on 16 x 64 tiles,
# each over half of K; common/moe_fp8_register_gemm.h). Its gate (moe_stage_kernels_test's register-fed cases, which
# hold _kw2 kernels), `moetune measure` of the 16 x 64 register-fed stage-1 kernels with and without K-groups (and
# _occ3: three such workgroups an SM, their registers bounded) at KW_TOKS tokens, then bench_ab.py of the table of
# record against the same table with the 1- and 2-token rows' stage 1 the fastest measured _kw2 kernel.
#   TARGETS="moe_stage_kernels_test" [KW_TOKS="1 2 4"] [KW_ROUNDS=3] STEPS=call34.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate kw2 300 moe_stage_kernels_test "shared-operand kernels match the reference,the register-fed stage 1's fused MXFP8 epilogue writes the separate quantisation's bytes,register-fed stage-1 kernels given the routing write what they write from the sort,FP8 warpgroup products keep FP32 sums over a long K" || true
for m in ${KW_TOKS:-1 2 4}; do
  measure_into kw_$m $m 'moe1_.*_t16x64x(256|512|1024)(_w4|_occ3)?_nt_wgmma_gui(_kw2)?$'
  cp $L/kw_$m.txt $OUT/
done
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
python3 - $TB $L/kw_1.txt $L/kw_2.txt > $OUT/kw_table.csv <<'PY' || { stamp "kw_table failed"; return 0; }
import csv, sys
table, by_tokens = sys.argv[1], {"1": sys.argv[2], "2": sys.argv[3]}
def fastest_kw2(path):
    ok = [(float(f[1]), f[0]) for f in (l.split() for l in open(path))
          if len(f) == 4 and f[0].endswith("_kw2") and f[3] == "ok"]
    return min(ok)[1]
rows = list(csv.reader(open(table, newline="")))
col = rows[0].index("kernelName1")
for r in rows[1:]:
    if r[2] in by_tokens:
        r[col] = fastest_kw2(by_tokens[r[2]])
csv.writer(sys.stdout, lineterminator="\n").writerows(rows)
PY
grep -E "^[^,]*,[^,]*,(1|2)," $OUT/kw_table.csv | cut -d, -f3,18
table_arm table $B $TB; table_arm kw $B $OUT/kw_table.csv
timeout 150 python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm kw=/tmp/arm_kw --rounds ${KW_ROUNDS:-3} \
  --json $OUT/kw_ab.json --markdown $OUT/kw_ab.md -- --shapes $S --tokens 1,2 --rounds 5 > $L/kw_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/kw_ab.md
