#!/usr/bin/env bash
# Every preset at its reproduction length ('reproduce' in its meta file), cheapest first, one lab
# at a time. Resumable: run it again after any interruption and finished runs are kept. Each preset
# is compared and published to presets/results/ as soon as its runs are done; with --commit the
# result is committed at once, so a long measurement loses nothing when a session ends. A run the
# lab could not carry (verdict invalid) runs once more; the invalid try is kept and counted.
#   usage: scripts/reproduce-presets.sh [--commit] [--lab NAME] [PRESET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=0
lab=repro
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=1 ;;
    --lab) lab="$2"; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) names+=("$1") ;;
  esac
  shift
done
if [ ${#names[@]} -eq 0 ]; then
  # Cheapest first (lfnlab preset list shows each one's runs and expected wall time).
  names=(seed003-responsiveness seed003-nflow seed002-selfsimilar seed000-table4 seed002-transient
    seed003-ber seed004-maxbw seed002-cbr seed001-dst seed001-sst seed000-table2 seed000-sinusoidal
    seed000-table1 seed000-table3 seed002-equivalence)
fi
lfnlab=(node backend/bin/lfnlab.js)
for name in "${names[@]}"; do
  echo "== $name ($(date -u +%H:%M) UTC)"
  status=0
  flock /tmp/lfnlab-lab.lock "${lfnlab[@]}" preset run "$name" --reproduce --retry-invalid 1 --lab "$lab" || status=$?
  [ "$status" -eq 130 ] && { echo "interrupted: run the script again to resume"; exit 130; }
  "${lfnlab[@]}" preset publish "$name" --reproduce
  if [ "$commit" -eq 1 ]; then
    git add "presets/results/$name" presets/results/index.html presets/results/README.md
    git commit -q -m "Results: $name at its reproduction length" || true
  fi
done
"${lfnlab[@]}" lab down --name "$lab" || true
