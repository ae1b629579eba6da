# (Moved from docs/pending/device after it ran: session 51, call 1 of docs/results/2026-12-06-h100-mx-rows.)
# Device call 21 (prepared in session 50, not yet run): pending part 2's two few-token modes measured apart. Part 2
# both lets stage 1 find its rows in the routing (no wait for the sort) and lets stage 2 quantise stage 1's bf16
# output itself (no pass between the stages); together they were 3-10 % slower at 1-8 tokens (session 40).
# Session 50 put the pass between the stages at 2.0 µs of one token's critical path on the H200
# (docs/results/2026-12-06-h200-ro-sweep, call 9). few_token_modes.patch (ABLATION, timing only) switches the modes
# by MOETUNE_FEW_TOKEN_MODES (bit 1 routed rows, bit 2 stage 2 quantising, on the sorted rows without bit 1), so
# one build gives every arm: part 2's gates, runtime_gpu_test with modes 3 and 2, then bench_ab.py of main
# (old.sh) against modes 0 (part 1's path), 1, 2 and 3 with the table of record.
#   bash docs/pending/device/prep.sh 2, then:
#   PARTS=2 PRE="old.sh ablation.sh" ABLATION=few_token_modes.patch [FT_TOKS=1,2,4,8,16,64,128] [FT_ROUNDS=2] TARGETS="moe_stage_kernels_test runtime_gpu_test" STEPS=call21.sh bash docs/pending/device/p.sh
source $D/steps.sh
gate modes 300 moe_stage_kernels_test "register-fed stage-1 kernels given the routing*,register-fed stage-2 kernels on stage 1*"
runtime_test
MOETUNE_FEW_TOKEN_MODES=2 runtime_test
wait_old
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
ARMS="--arm main=/tmp/old-build/moetune"
for k in 0 1 2 3; do
  printf '#!/bin/sh\nMOETUNE_FEW_TOKEN_MODES=%s exec %s "$@"\n' $k "$(realpath $B)" > /tmp/arm_mode$k; chmod +x /tmp/arm_mode$k
  ARMS="$ARMS --arm mode$k=/tmp/arm_mode$k"
done
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py $ARMS --rounds ${FT_ROUNDS:-2} --json $OUT/modes_ab.json \
  --markdown $OUT/modes_ab.md -- --shapes $S --tuned $TB --tokens ${FT_TOKS:-1,2,4,8,16,64,128} --rounds 5 \
  > $L/modes_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/modes_ab.md
