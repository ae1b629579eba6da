# Device call 4: why `_f4w` loses to `_ws` on the H200 (session 41's sweep, stage 1 t128x256: +11 % at 1024 tokens,
# +23 % at 2048, +39 % at 4096, where the H100 had it 11-22 % faster at 1024-2048). Nsight Compute's full set for
# both stage-1 kernels at M tokens (default 4096; one launch each, inside `moetune measure --in-process`), the
# raw CSVs in $OUT/ncu_f4w.tgz and the metrics that tell shared memory, tensor pipes and issue apart printed; then
# the stall reasons per issued instruction of both (the eight largest printed). ARMS="old new" does the same for
# main's build beside this tree's (after call1.sh with PRE=old.sh, which built it into /tmp/old-build).
#   [M=tokens] [ARMS="old new"] TARGETS="" STEPS=call4.sh bash docs/pending/device/p.sh
source $D/ncu_stage1.sh
for arm in ${ARMS:-new}; do
  bin=$B; [ $arm = old ] && bin=/tmp/old-build/moetune
  for K in ws ws_f4w; do ncu_stage1 $bin $K $L/ncu_${arm}_${K}_${M:-4096}.csv --csv --set full --page details; done
  # Where the warps wait (the full set's details page has no stall breakdown).
  for K in ws ws_f4w; do
    name=ncu_stalls_${arm}_${K}_${M:-4096}
    ncu_stage1 $bin $K $L/$name.csv --csv --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
    python3 -c 'import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>12]; h=rows[0]; n=h.index("Metric Name"); v=h.index("Metric Value")
top=sorted(((float(r[v].replace(",","")),r[n].split("stalled_")[1].split("_per")[0]) for r in rows[1:]),reverse=True)[:8]
print(sys.argv[1].split("/")[-1], " ".join("%s %.2f"%(k,x) for x,k in top))' $L/$name.csv
  done
done
tar czf $OUT/ncu_f4w.tgz -C $L $(cd $L && ls ncu_*.csv)
python3 - $L <<'PY'
import csv, sys, glob, os
keys = ("Duration", "Shared", "Tensor", "Issue Slots", "Stall", "Registers", "Occupancy", "DRAM Throughput",
        "Bank", "Throughput", "Ipc", "Pipe", "Warp Cycles")
for f in sorted(glob.glob(sys.argv[1] + "/ncu_*.csv")):
    rows = [r for r in csv.reader(open(f)) if len(r) > 12]
    if not rows:
        print(os.path.basename(f), "no rows"); os.system("tail -5 " + f); continue
    h = rows[0]; n = h.index("Metric Name"); v = h.index("Metric Value"); u = h.index("Metric Unit")
    print("==", os.path.basename(f))
    for r in rows[1:]:
        if any(k in r[n] for k in keys): print("  ", r[n], r[v], r[u])
PY
