# Sourced by prep.sh and old.sh: which docs/pending parts a selection names. SPEC is N (the parts numbered up to N)
# or =N[,M...] (those parts alone, applied to main by themselves: parts that need none of the ones before).
wanted() {  # wanted SPEC PATCH_FILE: true when the patch's part is selected
  local n=${2##*/}; n=${n%%-*}
  case $1 in =*) [[ ",${1#=}," == *",$n,"* ]] ;; *) [ "$n" -le "$1" ] ;; esac
}
