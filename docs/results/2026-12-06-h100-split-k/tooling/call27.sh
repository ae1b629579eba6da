# Device call 27 (session 52): the qualifiers of the register-fed kernels' streaming weight loads (mx_load16<true>,
# common/memory.h), from the environment through load_flavor.patch (applied with rtc_defines.patch by ablation.sh
# to the device's copy only): MOETUNE_STREAM_LOAD 0 `ld.global.cs` (main), 1 `.cs.L2::256B`, 2
# `.nc.L1::no_allocate.L2::256B`, 3 `.nc.L1::no_allocate`, 4 `.cs` in a non-volatile asm (the compiler may move it).
# `moetune measure` of the table's register-fed kernels at LF_TOKS for each of FLAVORS, then bench_ab.py of the table
# of record with each flavor (LF_ROUNDS rounds at LF_AB_TOKS).
# (Ran in session 52 from docs/pending/device, with load_flavor.patch beside it: copy both back there to run it again.)
#   PRE=ablation.sh ABLATION=load_flavor.patch TARGETS="" STEPS=call27.sh bash docs/pending/device/p.sh
source $D/steps.sh
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv
ARMS=()
for f in ${FLAVORS:-0 1 2 3 4}; do
  for m in ${LF_TOKS:-1 8}; do
    MOETUNE_STREAM_LOAD=$f measure_into measure_f${f}_$m $m \
      "${LF_KERNELS:-moe1_.*_t16x(64x512_w4|128x512)_nt_wgmma_gui\$|moe2_.*_t16x128x(256|512)_atomic_nt_wgmma\$}"
  done
  printf '#!/bin/sh\ncmd=$1; shift; MOETUNE_STREAM_LOAD=%s exec %s "$cmd" --tuned %s "$@"\n' $f "$(realpath $B)" \
    "$(realpath $TB)" > /tmp/arm_f$f
  chmod +x /tmp/arm_f$f; ARMS+=(--arm f$f=/tmp/arm_f$f)
done
timeout $(( $(left) - 10 )) python3 scripts/bench_ab.py "${ARMS[@]}" --rounds ${LF_ROUNDS:-2} --json $OUT/flavor_ab.json \
  --markdown $OUT/flavor_ab.md -- --shapes $S --tokens ${LF_AB_TOKS:-1,2,8,64} --rounds 5 > $L/flavor_ab.txt 2>&1
stamp "bench_ab rc=$?"; cat $OUT/flavor_ab.md
