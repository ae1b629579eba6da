# Device call 44 (session 67), any card (the H200 first): item 32. fused_probe.cu (nvcc; its host reference takes
# ~20 s): one token's whole MoE in one persistent launch, each variant checked and timed, beside its stage-1 items
# alone; then `moetune bench --tokens 1` of the table of record on the same machine, the MoE as the library runs
# it (the same 8 routings a replay, median of graph replays).
#   TARGETS="" STEPS=call44.sh bash docs/pending/device/p.sh
(nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/fused_probe $D/fused_probe.cu && timeout 200 /tmp/fused_probe) \
  > $OUT/fused_probe.txt 2>&1
stamp "fused probe rc=$? ($(grep -c pass $OUT/fused_probe.txt) checks passed, $(grep -c FAIL $OUT/fused_probe.txt) failed)"
grep -v "check:" $OUT/fused_probe.txt
timeout 60 $B bench --shapes $S --tuned $TB --tokens 1 --rounds 5 --json $OUT/bench_1.json > $OUT/bench_1.txt 2>&1
stamp "bench rc=$?"; tail -6 $OUT/bench_1.txt | cut -c1-160
