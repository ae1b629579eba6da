# On the device machine, from the repository root (the `run` command):
#   PARTS=N [PRE=old.sh] TARGETS="..." STEPS=callK.sh bash docs/pending/device/p.sh
# Builds moetune and TARGETS into build-dev (Release, ninja), then sources STEPS (one or more, in turn); PRE (one
# or more, in turn: old.sh before a patch of this tree) is sourced first.
# Logs go to $OUT/logs.tgz whatever happens; the steps print their verdicts.
set -u
D=docs/pending/device
# A command without STEPS would build for ~40 s and then stop (session 68's call 3): stop before the build.
: "${STEPS:?STEPS must name the step files to run (STEPS=callK.sh)}"
for step in $STEPS; do [ -f $D/$step ] || { echo "no step file $D/$step" >&2; exit 2; }; done
export PATH=/usr/local/cuda/bin:$PATH
L=/tmp/logs; rm -rf $L; mkdir -p $L
trap 'tar czf $OUT/logs.tgz -C $L .' EXIT
T0=$(date +%s); stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
left() { echo $(( ${LIMIT:-580} - ($(date +%s) - T0) )); }  # seconds of the call's limit (LIMIT) left
S=shapes/dsv41_flash_ep4_a8w4.csv; B=build-dev/moetune
TB=docs/results/2026-12-05-h200-f4w-1024/dsv41_flash_ep4_a8w4_tuned.csv  # the table of record, for every step
for pre in ${PRE:-}; do source $D/$pre; done
[ -f build-dev/build.ninja ] || cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release > $L/cmake.log 2>&1
# A file that differed from HEAD in the last call (a PRE's patch, an uncommitted change) comes back to HEAD's content
# here with its old time, which ninja takes for built (session 55: two calls ran a mix of two patches): touch those,
# then record this call's.
[ -f build-dev/.changed ] && xargs -r touch -c < build-dev/.changed
git diff --name-only HEAD > build-dev/.changed
ninja -C build-dev moetune ${TARGETS:-} > $L/build.log 2>&1 || { tail -40 $L/build.log; exit 1; }
stamp built
for step in $STEPS; do source $D/$step; done
stamp done
