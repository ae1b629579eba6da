# Device call 10 (session 48), from main: why the 128 x 256 `_ws` stage 2 took 4-7 % less with the balanced
# routing than with the random one at 4096-8192 tokens in call 9, whatever the padding rows. At TOKS tokens,
# ROUNDS times in turn, `moetune measure` of KERNELS with six routings (every expert 213-214 rows but the random
# one's): random and balanced (moetune's), and four files written here (routing_files.py): random ids with weights
# 1/topk, balanced ids with softmax weights, the balanced ids with the experts permuted (neighbours in the walk no
# longer share tokens), and blocked ids (an expert's rows in runs of consecutive tokens). The SM clock and the power
# drawn are sampled (nvidia-smi, 100 ms) during each measurement: the weights scale the rows stage 2 adds, and the
# H100/H200 clocks fall under their power cap.
#   KERNELS='regex' TOKS=4096 [ROUNDS=2] TARGETS="" STEPS=call10.sh bash docs/pending/device/p.sh
source $D/steps.sh
python3 $D/routing_files.py 96 5 ${TOKS%%,*} /tmp/routing || exit 1
for r in $(seq ${ROUNDS:-2}); do
  for m in ${TOKS//,/ }; do
    for routing in random balanced file:/tmp/routing_{random_ids_equal_weights,balanced_ids_softmax_weights,permuted_balanced_ids,blocked_ids}.txt; do
      name=route_${m}_$(basename ${routing#file:} .txt)_$r
      nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader,nounits -lms 100 > $L/$name.smi &
      SMI=$!
      ROUTING=$routing measure_into $name $m "$KERNELS"
      kill $SMI
      awk -F, '{c += $1; p += $2; n++} END {if (n) printf "  clock %.0f MHz, power %.0f W (%d samples)\n", c / n, p / n, n}' $L/$name.smi
    done
  done
done
