# Device call 9 (session 48), from pending-=8 with PRE=old.sh: what the padding rows cost the 128 x 256 `_ws`
# stages where they are bound by their products. `moetune measure` of KERNELS (main's build) at each of TOKS tokens
# with the random routing and with the balanced one, alternated ROUNDS times: at 6144 tokens the balanced routing
# gives every expert 320 rows (no padding at 64-row granularity, 16.7 % at 128) and the random one 9.3 % padding
# rows at 64 (16.4 % at 128), so the two arms say whether a tile's time follows its 64-row blocks (as a warpgroup of
# padding issues nothing) or its whole 128 rows; 4096 and 8192 tokens give two more points (padding at 64: random
# 14.9 / 6.7 %, balanced 16.7 / 4.8 %). On an H200 it also runs part 8's walks (KERNELS8) against main at TOKS8.
#   PARTS==8 PRE=old.sh KERNELS='regex' TOKS=6144,4096,8192 [ROUNDS=2] KERNELS8='regex' TOKS8=1024,2048
#   TARGETS="" STEPS=call9.sh bash docs/pending/device/p.sh
source $D/steps.sh
wait_old
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then measure_arms "$TOKS8" "$KERNELS8"; fi
for r in $(seq ${ROUNDS:-2}); do
  for m in ${TOKS//,/ }; do
    for routing in random balanced; do
      ROUTING=$routing measure_into pad_${m}_${routing}_$r $m "$KERNELS" /tmp/old-build/moetune
    done
  done
done
