# Device call 26 (session 52), for an H200: the sort's gate (data_gpu_test "[sort]"), then the table of record's
# one-token row made the MXFP8-rows pair (register-fed _fp8 stage 1 + _mxr stage 2) if bench_ab.py finds the pair
# faster there (pair_row.py; us1 / us2 from `moetune measure`, mx_rows_space.patch putting the pair in the device
# copy's space), then the figures of record with that table: `moetune bench` of all 15 buckets, peer_torch.py and
# plot_bench.py (FULL=0: not those). The gpu label goes in a call of its own (call2.sh) on the same warm machine.
# ROUTINGS (default 8, both tools' default since session 56): the bench and the peer take that many routings in turn
# (each call's experts cold in L2, as a model's are); ROUTINGS=1 times the figures of record as sessions 41-55 did.
#   PRE=mx_space.sh TARGETS="data_gpu_test" [FULL=0] [ROUTINGS=1] STEPS=call26.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate sort 120 data_gpu_test "[sort]" || true
MX=$L/mx_rows_table.csv
mx_rows_table $TB $MX
table_arm table $B $TB; table_arm mx $B $MX
timeout 150 python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm mx=/tmp/arm_mx --rounds ${PAIR_ROUNDS:-5} \
  --json $L/pair_ab.json --markdown $OUT/pair_ab.md -- --shapes $S --tokens 1 --rounds 5 > $L/pair_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/pair_ab.md
measure_into measure_s1_1 1 'moe1_.*_t16x64x512_w4_nt_wgmma_gui(_fp8)?$'
measure_into measure_s2_1 1 'moe2_.*_t16x128x256_atomic_nt_wgmma(_mxr)?$'
python3 $D/pair_row.py $L/pair_ab.json $L/measure_s1_1.txt $L/measure_s2_1.txt $TB $OUT/tuned.csv; stamp "pair_row rc=$?"
[ "${FULL:-1}" = 0 ] && return 0
figures_of_record $OUT/tuned.csv
