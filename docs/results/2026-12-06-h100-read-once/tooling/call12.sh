# Device call 12 (session 48), from pending-=9 with PRE=old.sh: part 9 (the _ws loop copies a tile's weights
# evict-first where the tile is its expert's only row tile). The `_ws` gates (bit for bit: the hint changes no
# value), runtime_gpu_test, then `moetune measure` of KERNELS at each of TOKS (main's build and this one in turn),
# then ab.sh (scripts/bench_ab.py of main against part 9 at AB_TOKS, alternated, with the table of record).
#   PARTS==9 PRE=old.sh KERNELS='regex' TOKS=1024,2048,4096 AB_TOKS=256,512,1024,2048,4096,8192
#   TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call12.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate ws 200 moe_stage_kernels_test "FP4 weight blocks give the warp-specialised kernels' bits,FP8 shared-operand kernels give the same results however many workgroups walk the tiles"
runtime_test
wait_old
measure_arms "$TOKS" "$KERNELS"
source $D/ab.sh
