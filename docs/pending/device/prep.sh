#!/bin/bash
# On the development machine: puts the working tree on branch pending-N = main + the parts of docs/pending
# numbered up to N (default: all), or pending-=N = main + part N alone with `=N` (parts.sh), one commit, ready for
# the device machine (whose copy of the tree is that branch). BASE: another commit to apply them on (parts 1-3:
# 1187d24, docs/pending/README.md). Usage: [BASE=commit] bash docs/pending/device/prep.sh [N | =N]
set -e
cd "$(git rev-parse --show-toplevel)"
N=${1:-9}
source docs/pending/device/parts.sh
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "prep.sh: tree not clean" >&2; exit 1; }
git checkout -q -B pending-$N ${BASE:-main}
for p in docs/pending/[1-9]-*.patch; do if wanted "$N" "$p"; then git apply --index "$p"; fi; done
git commit -q --allow-empty -m "docs/pending parts $N applied (not yet run on a GPU)"
echo "on pending-$N: $(git diff --stat main | tail -1)"
