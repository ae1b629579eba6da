# Device call 17 (session 50): the warp-specialised kernels (_ws, _f4w, _ro) at few tokens, where no table row runs
# them. The sweep's block_m heuristic prunes their 64-256-row tiles below ~512 tokens (mostly padding); at one token
# padding costs tensor work only, and the stages there stream weights at 2.1-2.5 TB/s (docs/kernel-design.md,
# session 37), so a bulk-copy pipeline could stream faster even with 63 of 64 rows empty. --no-heuristics times
# them at FEW_TOKS beside the 16-row register-fed kernels the table of record runs there (same sweep, same data);
# every candidate's µs lands in few_profile.csv, the winners in few.csv.
#   [FEW_TOKS=1,4,16] [FEW_S=s] TARGETS="" STEPS=call17.sh bash docs/pending/device/p.sh
FEW_RE='_ws|_t16x(64|128)x(256|512|1024)_(atomic_)?(w4_)?nt_wgmma(_gui)?$'
timeout ${FEW_S:-300} $B sweep --shapes $S --tokens ${FEW_TOKS:-1,4,16} --no-heuristics --mma fp8 --kernels "$FEW_RE" \
  -o $OUT/few.csv --profile-out $OUT/few_profile.csv > $L/few.txt 2>&1; stamp "few-token sweep rc=$?"
tail -3 $L/few.txt
# Per bucket and stage: the five fastest, and the fastest register-fed (t16) and warp-specialised (_ws) kernel.
python3 - $OUT/few_profile.csv <<'EOF' | tee $OUT/few_summary.txt
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))  # the sweep profile: token, stage, kernelName, us, status
by = collections.defaultdict(list)
for r in rows:
    if not r["us"]: continue
    by[(int(r["token"]), "s" + r["stage"])].append((float(r["us"]), r["kernelName"].split("bf16_")[-1], r["status"]))
for (tok, stage), v in sorted(by.items()):
    v.sort()
    best_t16 = next((x for x in v if x[1].startswith("t16x")), None)
    best_ws = next((x for x in v if "_ws" in x[1]), None)
    print(f"{tok} tokens {stage}: " + ", ".join(f"{n} {u:.1f} ({st})" for u, n, st in v[:5]))
    print(f"   best t16 {best_t16}  best _ws {best_ws}")
EOF
