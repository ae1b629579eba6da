# Sourced by p.sh (PRE=old.sh): builds main, i.e. this tree without the docs/pending parts PARTS names (N: up to
# N; =N: part N alone; parts.sh), into /tmp/old-build in the background, for A/B benches in the same call (wait
# $OLD_PID before using it). build_main copies the tree before it returns, so that a PRE after it (ablation.sh)
# may patch this tree alone.
# build_main SRC BUILD LOG: main from SRC into BUILD.
build_main() {
  local src=$1 build=$2 log=$3
  rm -rf $src && mkdir -p $src && tar cf - --exclude=./build-dev --exclude=./.git . | tar xf - -C $src
  (
    cd $src && source docs/pending/device/parts.sh &&
    for p in $(ls -r docs/pending/[1-9]-*.patch); do wanted "${PARTS:-9}" "$p" || continue; patch -s -R -p1 --no-backup-if-mismatch < "$p" || exit 1; done &&
    { [ -f $build/build.ninja ] || cmake -S $src -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null; } &&
    ninja -C $build moetune > $log 2>&1; echo "$build rc $?" >> $log
  ) &
}
build_main /tmp/old /tmp/old-build $L/build-old.log
OLD_PID=$!
