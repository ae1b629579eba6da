# Device step for docs/pending item 30, the eight-row kernels (eight_rows.patch, applied by PRE=apply.sh; no old
# build): their gate and runtime_gpu_test; `moetune measure` of the few-token register-fed kernels with their _r8
# twins in one run at each of TOKS tokens; then table_ab.sh: the table of record against the same table with _r8
# kernels in its rows of at most 8 tokens (table_r8.csv).
#   P=docs/pending/device/eight_rows.patch; PRE=apply.sh APPLY=$P [TOKS=1,2,4,8] [AB_TOKS=1,2,4,8] TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=r8.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate r8 300 moe_stage_kernels_test "eight-row register-fed kernels match the reference at up to 8 tokens"
runtime_test
T8=$OUT/table_r8.csv
python3 - $TB $T8 <<'PY'
import csv, re, sys
rows = list(csv.reader(open(sys.argv[1])))
head = rows[0]
token, k1, k2 = head.index("token"), head.index("kernelName1"), head.index("kernelName2")
r8 = lambda name: re.sub(r"_wgmma(_mxr)?(?=(_gui|_sbm\d+)?$)", r"_wgmma\1_r8", name)
for row in rows[1:]:
    if int(row[token]) <= 8:
        row[k1], row[k2] = r8(row[k1]), r8(row[k2])
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(rows)
PY
TOKS=${TOKS:-1,2,4,8}
for m in ${TOKS//,/ }; do measure_into measure_r8_$m $m 't16x.*_nt_wgmma(_r8)?(_gui)?$'; cp $L/measure_r8_$m.txt $OUT/; done
TB2=$T8; AB_TOKS=${AB_TOKS:-1,2,4,8}
source $D/table_ab.sh
