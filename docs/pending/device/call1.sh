# Device call 1: gates, then the whole MoE main against main + the parts up to PARTS, then where the time goes.
#   bash docs/pending/device/prep.sh 3   (on the development machine), then run with carry nothing:
#   PARTS=3 (or =N: part N alone, prep.sh =N) PRE=old.sh TARGETS="moe_stage_kernels_test runtime_gpu_test data_gpu_test" STEPS=call1.sh bash docs/pending/device/p.sh
#   PROBE=0 leaves out step 1, AB=0 the whole-MoE bench and its ncu (for parts whose kernels no table runs);
#   F4W=1 (a part that changes the `_f4w` kernels) adds their gate and the `moetune measure` below.
# 1. stream_probe.cu (nvcc): the one-token stage 1's grid streaming its 61 MB with loads only, and through a
#    per-warp ring of bulk copies: whether <= 30 us at one token is a question of the loop, the bytes in flight
#    or the grid. 2. Each part's bit-for-bit tests (gates), runtime_gpu_test. 3. If runtime_gpu_test passed:
#    `moetune bench` at all 15 buckets, main and the parts alternated twice
#    (scripts/bench_ab.py: both arms' rounds and the medians' difference per bucket),
#    ncu per kernel at 4096 tokens; with F4W=1, `moetune measure` of the t128x256 `_ws`/`_f4w` kernels at
#    1024, 2048 and 4096 tokens, main's build and this one in turn.
PARTS=${PARTS:-9}
source $D/parts.sh
part() { wanted "$PARTS" "$(ls docs/pending/$1-*.patch)"; }  # part N: this tree has part N
source $D/steps.sh
if [ "${PROBE:-1}" = 1 ]; then
  (nvcc -O3 -std=c++17 -arch=sm_90a -o /tmp/stream_probe $D/stream_probe.cu && timeout 30 /tmp/stream_probe) > $OUT/stream_probe.txt 2>&1; stamp "stream probe rc=$?"
  cat $OUT/stream_probe.txt
fi
part 2 && gate few 120 moe_stage_kernels_test "register-fed stage-1 kernels given the routing write what they write from the sort,register-fed stage-2 kernels on stage 1's bf16 output and the routing give their sorted bits"
gate sort_quant 150 data_gpu_test "[sort],GPU MXFP8 quantisation straight to rebased rows equals quantise then rebase on the CPU,GPU rebasing of MXFP8 equals the CPU's"
part 3 && gate own_rebase 120 moe_stage_kernels_test "warp-specialised _fp8 stage-1 kernels rebase their own rows as mxfp8_rebase does"
[ "${F4W:-0}" = 1 ] && gate f4w 120 moe_stage_kernels_test "FP4 weight blocks give the warp-specialised kernels' bits"
runtime_test; RT=$?
wait_old
TOK=1,2,4,8,16,32,64,128,256,512,1024,2048,4096,8192,16384
if [ $RT = 0 ]; then
  if [ "${AB:-1}" = 1 ]; then
    timeout 320 python3 scripts/bench_ab.py --arm main=/tmp/old-build/moetune --arm parts=$B --rounds 2 --json $OUT/ab.json \
      --markdown $OUT/ab.md -- --shapes $S --tuned $TB --tokens $TOK --rounds 5 > $L/ab.txt 2>&1; stamp "bench_ab rc=$?"
    cat $OUT/ab.md
    timeout 60 ncu --clock-control none --target-processes all --metrics gpu__time_duration.sum --csv -k 'regex:moe_sort|mxfp8|moetune_moe|moe_reduce' --launch-count 40 \
      $B bench --shapes $S --tuned $TB --tokens 4096 --rounds 1 > $OUT/ncu_new_4096.csv 2>&1; stamp "ncu new 4096 rc=$?"
    python3 $D/ncu_summary.py $OUT/ncu_new_4096.csv
  fi
  if [ "${F4W:-0}" = 1 ]; then  # the tables of record run no _f4w kernel: the kernels themselves, main's build and this one in turn
    measure_arms 1024,2048,4096 't128x256x128_(atomic_)?w12_smem_wgmma_ws(_f4w)?(_gui_fp8)?$'
  fi
fi
