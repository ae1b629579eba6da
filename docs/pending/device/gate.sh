# Sourced by call1.sh and call6.sh: gate NAME TIMEOUT BINARY SPEC runs the Catch2 tests SPEC names of a
# build-dev test binary. Catch2 v2 ORs names joined by commas but ANDs separate arguments; "No tests ran"
# counts as a failure. Prints the verdict, returns the rc.
gate() {
  local name=$1 t=$2 bin=$3 spec=$4
  (cd build-dev && timeout $t ./$bin "$spec" > $L/gate_$name.txt 2>&1); local rc=$?
  grep -q "No tests ran" $L/gate_$name.txt && rc=1
  stamp "gate $name rc=$rc"; grep -E "FAILED|with expansion|test cases|passed|failed" $L/gate_$name.txt | head -8; return $rc
}
