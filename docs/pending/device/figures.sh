# Device step, any card: the figures of record (steps.sh's figures_of_record: `moetune bench` of all 15 buckets,
# peer_torch.py, plot_bench.py) with FIG_TABLE (default the table of record).
#   [FIG_TABLE=path] [ROUNDS=5] [ROUTINGS=8] TARGETS="" STEPS=figures.sh bash docs/pending/device/p.sh
source $D/steps.sh
figures_of_record ${FIG_TABLE:-$TB}
