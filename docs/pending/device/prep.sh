#!/bin/bash
# On the development machine: puts the working tree on branch pending-N = main + parts 1..N of docs/pending
# (N 1-4, default 4), one commit, ready for the device machine (whose copy of the tree is that branch).
# Usage: bash docs/pending/device/prep.sh [N]
set -e
cd "$(git rev-parse --show-toplevel)"
N=${1:-4}
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "prep.sh: tree not clean" >&2; exit 1; }
git checkout -q -B pending-$N main
for i in $(seq 1 "$N"); do git apply --index docs/pending/$i-*.patch; done
git commit -q -m "docs/pending parts 1-$N applied (not yet run on a GPU)"
echo "on pending-$N: $(git diff --stat main | tail -1)"
