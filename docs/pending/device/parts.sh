# Sourced by prep.sh and old.sh: which docs/pending parts a selection names. SPEC is N (the parts numbered up to N)
# or =N (part N alone, applied to main by itself: a part that needs none of the ones before).
wanted() {  # wanted SPEC PATCH_FILE: true when the patch's part is selected
  local n=${2##*/}; n=${n%%-*}
  case $1 in =*) [ "$n" = "${1#=}" ] ;; *) [ "$n" -le "$1" ] ;; esac
}
