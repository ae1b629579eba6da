# Device call 4, only if call 1 shows _f4w ahead at 1024/2048: a sweep of 1024-16384 tokens over the 256-wide _ws
# kernels (every current winner there is one) with and without _f4w, merged over main's table (the new rows win),
# then the whole MoE on this build with main's table against the merged table, alternated twice (bench_ab.py's
# arms are binaries: a wrapper a table gives each its --tuned).
#   TARGETS="" STEPS=call4.sh bash docs/pending/device/p.sh
TB=docs/results/2026-12-04-h200-bulk-weights/dsv41_flash_ep4_a8w4_tuned.csv
timeout 420 $B sweep --shapes $S --tokens 1024,2048,4096,8192,16384 --mma fp8 --kernels 'x256x128_.*smem_wgmma_ws' \
  -o $OUT/f4w_sweep.csv --profile-out $OUT/f4w_profile.csv > $L/sweep.txt 2>&1; stamp "sweep rc=$?"
tail -3 $L/sweep.txt
$B merge --on-duplicate last -o $OUT/f4w_tuned.csv $TB $OUT/f4w_sweep.csv > $L/merge.txt 2>&1; stamp "merge rc=$?"
for arm in table:$TB f4w:$OUT/f4w_tuned.csv; do
  printf '#!/bin/sh\ncmd=$1; shift; exec %s "$cmd" --tuned %s "$@"\n' "$(realpath $B)" "$(realpath -m ${arm#*:})" > /tmp/arm_${arm%%:*}; chmod +x /tmp/arm_${arm%%:*}
done
timeout 260 python3 scripts/bench_ab.py --arm table=/tmp/arm_table --arm f4w=/tmp/arm_f4w --rounds 2 --json $OUT/ab_f4w.json \
  --markdown $OUT/ab_f4w.md -- --shapes $S --tokens 1024,2048,4096,8192,16384 --rounds 5 > $L/ab_f4w.txt 2>&1; stamp "bench_ab rc=$?"
cat $OUT/ab_f4w.md
