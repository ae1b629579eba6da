#!/usr/bin/env bash
# A moetune sweep on a Slurm cluster (docs/cluster.md): an array job of N shards, one node each
# with all its GPUs, then a job that runs once every shard has ended, merges the shard outputs and
# checks the result.
#   scripts/slurm_sweep.sh SHAPES.csv N [OUT_DIR]
# Writes OUT_DIR/shard_<i>.csv (+ .json reports, slurm-*.log) and OUT_DIR/final.csv; OUT_DIR
# defaults to output/<shapes stem>_slurm. Run it again to resume: every shard skips the rows its
# output already has.
# Environment:
#   MOETUNE      the moetune binary, on a filesystem the nodes share (default: build/moetune here)
#   SBATCH_ARGS  extra sbatch options for the shard jobs: partition, account, time limit, GPUs
#                (default: --nodes=1 --exclusive, i.e. a whole node and all its GPUs)
#   SWEEP_ARGS   extra `moetune sweep` options, e.g. "--tokens aiter --cache-dir /shared/moetune-cache"
# The script calls itself on the nodes as `slurm_sweep.sh --shard ...` / `--merge ...`.
set -euo pipefail

script=$(realpath "$0")
moetune=$(realpath -m "${MOETUNE:-$(dirname "$script")/../build/moetune}")

run_shard() {  # --shard SHAPES N OUT_DIR, inside array task $SLURM_ARRAY_TASK_ID
  local shapes=$1 n=$2 out=$3 i=${SLURM_ARRAY_TASK_ID:?run by sbatch --array}
  # shellcheck disable=SC2086  # SWEEP_ARGS is a list of options
  exec "$moetune" sweep --shapes "$shapes" --shard "$i/$n" --gpus all \
    -o "$out/shard_$i.csv" --report "$out/shard_$i.json" ${SWEEP_ARGS:-}
}

run_merge() {  # --merge N OUT_DIR, after every shard ended (successfully or not)
  local n=$1 out=$2 shards=() i
  for ((i = 0; i < n; i++)); do
    if [[ -f "$out/shard_$i.csv" ]]; then shards+=("$out/shard_$i.csv")
    else echo "slurm_sweep: shard $i wrote no output (see $out/slurm-*_$i.log)" >&2; fi
  done
  [[ ${#shards[@]} -gt 0 ]] || { echo "slurm_sweep: no shard output to merge" >&2; exit 1; }
  "$moetune" merge -o "$out/final.csv" "${shards[@]}"
  "$moetune" check "$out/final.csv"
  # A shard that left entries untuned exited 1; its report says which and why.
  [[ ${#shards[@]} -eq $n ]] || exit 1
}

submit() {  # SHAPES N [OUT_DIR]
  [[ $# -ge 2 && $# -le 3 ]] || { echo "usage: $(sed -n '5p' "$script" | sed 's/^#  *//')" >&2; exit 2; }
  local shapes n=$2 out
  shapes=$(realpath "$1")
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "slurm_sweep: N must be a positive number, got '$n'" >&2; exit 2; }
  out=$(realpath -m "${3:-output/$(basename "${shapes%.*}")_slurm}")
  [[ -x "$moetune" ]] || { echo "slurm_sweep: $moetune is not built (scripts/setup.sh)" >&2; exit 2; }
  # The plan is checked here, before anything is queued: a bad shapes file fails now, not on N nodes.
  # shellcheck disable=SC2086
  "$moetune" -q sweep --dry-run --shapes "$shapes" ${SWEEP_ARGS:-} >/dev/null || [[ $? -eq 1 ]]
  mkdir -p "$out"

  local shards_job
  # shellcheck disable=SC2086  # SBATCH_ARGS is a list of options
  shards_job=$(sbatch --parsable --job-name=moetune-sweep --array="0-$((n - 1))" ${SBATCH_ARGS:---nodes=1 --exclusive} \
    --output="$out/slurm-%A_%a.log" --wrap "$(printf '%q ' "$script" --shard "$shapes" "$n" "$out")")
  sbatch --parsable --job-name=moetune-merge --dependency="afterany:$shards_job" --nodes=1 --ntasks=1 \
    --output="$out/slurm-merge-%j.log" --wrap "$(printf '%q ' "$script" --merge "$n" "$out")" >/dev/null
  echo "submitted $n shard(s) as job $shards_job and a merge after them; results in $out/final.csv"
}

case "${1:-}" in
  --shard) shift; run_shard "$@" ;;
  --merge) shift; run_merge "$@" ;;
  *) submit "$@" ;;
esac
