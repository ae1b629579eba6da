# Device call 33 (session 56), a short call on whatever card comes (results go to $OUT as they are made, so a cut
# call keeps the first): on an H200 the figures of record with the table of record, 8 routings (the default now)
# and the anchors' ceilings: `moetune bench` of all 15 buckets, peer_torch.py, plot_bench.py; on any card then
# bench_gpu_test and a one-token bench with both ceilings measured (the read-only HBM stream beside the copy).
# Session 57 ran it for part 7 (the read-only HBM stream, landed since): on an H200 the one-token bench's HBM line
# gives that card's measured ceiling beside the anchors' 4.27 TB/s.
#   TARGETS="bench_gpu_test" STEPS=call33.sh bash docs/pending/device/p.sh
source $D/steps.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  ROUNDS=3 figures_of_record $TB
fi
timeout 40 $B bench --shapes $S --tuned $TB --tokens 1 --rounds 3 --hbm-tbps 0 --peak-tflops 0 --json $L/peaks.json \
  > $L/peaks.txt 2>&1; stamp "peaks rc=$?"; grep HBM $L/peaks.txt
(cd build-dev && timeout 60 ctest -R bench_gpu_test --output-on-failure > $L/ctest.log 2>&1); stamp "bench_gpu_test rc=$?"
grep -E "tests passed|Test +#" $L/ctest.log
