# Device call 39 (session 62), any card: does a sustained load change the ranking at many tokens? `moetune measure`
# at SUS_TOKS (default 4096) tokens of the 128 x 256 warp-specialised kernels of both stages (the table of record's
# family there), with the default --replay-ms (2: R adapts to ~one launch a replay, a light load) and with
# --replay-ms SUS_MS (default 300: 20 launches a replay, hundreds of ms without a pause, as `moetune bench`'s rounds
# and a model run), each candidate with the SM clock read before and after its timing (measure's SM MHz column).
#   TARGETS="" [SUS_TOKS=…] [SUS_MS=…] STEPS=call39.sh bash docs/pending/device/p.sh
for m in ${SUS_TOKS:-4096}; do
  for rms in 2 ${SUS_MS:-300}; do
    for k in 't128x256x128_w12_smem_wgmma_ws(_f4w)?(_ro)?_gui(_fp8)?$' 't128x256x128_atomic_w12_smem_wgmma_ws(_f4w)?(_ro)?$'; do
      [ "$(left)" -lt 60 ] && { stamp "skipped: $(left) s left"; break 3; }
      timeout $(( $(left) - 10 )) $B measure --shapes $S --tokens $m --mma fp8 --kernels "$k" --replay-ms $rms \
        --cache-dir /tmp/kc > $L/sustained_${m}_${rms}_$(echo $k | cut -c14-20).txt 2>&1
      stamp "measure $m tokens, --replay-ms $rms, $k: rc=$?"
      grep moetune_moe $L/sustained_${m}_${rms}_$(echo $k | cut -c14-20).txt | sed 's/moetune_moe[12]_afp8_wfp4_bf16_//' | cut -c1-150
    done
  done
done
