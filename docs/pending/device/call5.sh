# Device call 5: where each warp of stage 1 t128x256 `_K` (K: ws_f4w unless given; M tokens, default 1024) waits,
# instruction by instruction: Nsight Compute's PC sampling (SourceCounters, WarpStateStats) of one launch inside
# `moetune measure --in-process`, then its source page (SASS, one row an instruction with its stall samples) as CSV,
# and the report itself, in $OUT/source_<K>_<M>.tgz. call4.sh gives the kernel-wide averages, which mix the
# producer warpgroup's waits with the consumers'.
#   [M=tokens] [K=ws_f4w] TARGETS="" STEPS=call5.sh bash docs/pending/device/p.sh
m=${M:-1024}
src=source_${K:-ws_f4w}_$m
source $D/ncu_stage1.sh
M=$m ncu_stage1 $B ${K:-ws_f4w} $L/$src.log --section SourceCounters --section WarpStateStats -f -o $L/$src
ncu -i $L/$src.ncu-rep --page source --csv --print-source sass > $L/$src.csv 2>&1; stamp "$src source page rc=$?"
tar czf $OUT/$src.tgz -C $L $src.ncu-rep $src.csv $src.log
head -c 600 $L/$src.csv; echo
