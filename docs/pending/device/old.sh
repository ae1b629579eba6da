# Sourced by p.sh (PRE=old.sh): builds main, i.e. this tree without the docs/pending parts PARTS names (N: up to
# N; =N: part N alone; parts.sh), or without the patches REVERSE names (paths, reverse-applied in the order given:
# a change not yet committed), into /tmp/old-build in the background, for A/B benches in the same call (steps.sh's
# wait_old before using it). The tree is copied before this returns, so that a PRE after it (ablation.sh) may patch
# this tree alone.
rm -rf /tmp/old && mkdir -p /tmp/old && tar cf - --exclude=./build-dev --exclude=./.git . | tar xf - -C /tmp/old
(
  cd /tmp/old && source docs/pending/device/parts.sh &&
  for p in ${REVERSE:-$(ls -r docs/pending/[1-9]-*.patch)}; do
    [ -n "${REVERSE:-}" ] || wanted "${PARTS:-9}" "$p" || continue; patch -s -R -p1 --no-backup-if-mismatch < "$p" || exit 1
  done &&
  { [ -f /tmp/old-build/build.ninja ] || cmake -S /tmp/old -B /tmp/old-build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null; } &&
  ninja -C /tmp/old-build moetune > $L/build-old.log 2>&1; echo "/tmp/old-build rc $?" >> $L/build-old.log
) &
OLD_PID=$!
