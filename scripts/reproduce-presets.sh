#!/usr/bin/env bash
# Every preset at its reproduction length ('reproduce' in its meta file), cheapest first, one preset
# at a time. Resumable: run it again after any interruption and finished runs are kept. Each preset
# is judged again with the current checks, compared and published to presets/results/ as soon as
# its runs are done; with --commit the result is committed at once, so a long measurement loses
# nothing when a session ends. A run the lab could not carry (verdict invalid) runs once more; the
# invalid try is kept and counted. Once both tries of one repetition are invalid, the variant's
# other repetitions run once each.
# Each finished run's record is kept in presets/results/PRESET/progress as it ends (and with
# --commit committed every 10 minutes), so a preset longer than a sitting resumes on a fresh clone.
# --labs N runs N dilated labs at once (NAME, NAME-2 …): a dilated lab's clock counts its own
# instructions, so a busy host slows its wall time, never its numbers.
# To end a sitting without losing the runs in flight: kill -USR2 "$(cat /tmp/lfnlab-reproduce.pid)"
# (the script's pid, also printed at its start); the runs in progress finish and are kept, no new
# one starts, and the script exits 130 (Ctrl-C stops them now). Its progress committer is a
# subshell with the same command line, so a USR2 that reaches it is passed on to the script.
# --rerun-changed: a preset edited since some of its runs were made (its file now gives a variant
# another spec) has those runs set aside under superseded/ and made anew; without it the preset
# run is refused, naming the field that moved.
#   usage: scripts/reproduce-presets.sh [--commit] [--lab NAME] [--labs N] [--rerun-changed] [PRESET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=0
lab=repro
labs=1
rerun=()
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=1 ;;
    --lab) lab="$2"; shift ;;
    --labs) labs="$2"; shift ;;
    --rerun-changed) rerun=(--rerun-changed) ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
lab_names=("$lab")
for ((i = 2; i <= labs; i++)); do lab_names+=("$lab-$i"); done
labs_down() {
  for l in "${lab_names[@]}"; do "${lfnlab[@]}" lab down --name "$l" || true; done
}

# Commits one preset's kept runs and the summary that counts them (only those files, whatever
# else is staged).
commit_progress() {
  local d="presets/results/$1/progress"
  [ -d "$d" ] || return 0
  "${lfnlab[@]}" preset summary > /dev/null || true
  local paths=("$d" presets/results/index.html presets/results/README.md)
  git add "${paths[@]}" || return 0
  git diff --cached --quiet -- "${paths[@]}" && return 0
  git commit -q -m "Progress: $1, $(find "$d" -path '*/runs/*/summary.json' | wc -l) runs kept" -- "${paths[@]}" || true
}
committer=""
stop_committer() {
  if [ -n "$committer" ]; then
    # It stops its own sleep, and never in the middle of a commit.
    kill "$committer" 2>/dev/null || true
    wait "$committer" 2>/dev/null || true
  fi
  committer=""
}
trap 'stop_committer; rm -f /tmp/lfnlab-reproduce.pid' EXIT

# One lab experiment at a time: the lock is held for the whole script. The preset runs as the
# script's own child (not under flock), so on Ctrl-C the script waits for it to clean up its run.
exec 9>/tmp/lfnlab-lab.lock
flock 9

# The preset runs in the background and the script waits for it, so a signal to the script reaches
# it at once (a trap waits for a foreground child to end).
child=""
draining=0
echo "$$" > /tmp/lfnlab-reproduce.pid
echo "reproduce-presets: pid $$; to stop after the runs in flight: kill -USR2 $$"

trap 'draining=1; [ -z "$child" ] || kill -USR2 "$child" 2>/dev/null || true' USR2
trap '[ -z "$child" ] || kill -INT "$child" 2>/dev/null || true' INT TERM
wait_child() {
  local s
  while :; do
    s=0
    wait "$child" || s=$?
    # wait returns early when a trapped signal arrives; the preset is still running then.
    kill -0 "$child" 2>/dev/null || break
  done
  child=""
  return "$s"
}

for name in "${names[@]}"; do
  [ "$draining" -eq 0 ] || break
  echo "== $name ($(date -u +%H:%M) UTC)"
  if [ "$commit" -eq 1 ]; then
    (
      # Sleeping in the background lets a trap run at once; a TERM ends it between commits.
      nap=""
      trap 'kill -USR2 $$' USR2
      trap '[ -z "$nap" ] || kill "$nap" 2>/dev/null; exit 0' TERM
      while :; do
        sleep 600 &
        nap=$!
        wait "$nap" || true
        kill "$nap" 2>/dev/null || true
        commit_progress "$name"
      done
    ) 9>&- &
    committer=$!
  fi
  status=0
  "${lfnlab[@]}" preset run "$name" --reproduce --retry-invalid 1 --lab "$lab" --labs "$labs" \
    --progress "presets/results/$name/progress" "${rerun[@]}" &
  child=$!
  wait_child || status=$?
  stop_committer
  if [ "$status" -eq 130 ]; then
    if [ "$commit" -eq 1 ]; then commit_progress "$name"; fi
    labs_down
    echo "interrupted: run the script again to resume"
    exit 130
  fi
  if [ "$status" -ne 0 ]; then
    # Publishing now would put out whatever rows the campaign directory holds (once: none at all).
    if [ "$commit" -eq 1 ]; then commit_progress "$name"; fi
    labs_down
    echo "$name: preset run failed (exit $status); nothing published, the runs kept stay in presets/results/$name/progress" >&2
    exit "$status"
  fi
  # Runs made across sittings may have been judged by different versions of the checks: judge
  # them all again with this one before publishing (the kept records follow).
  "${lfnlab[@]}" preset publish "$name" --reproduce --rejudge --progress "presets/results/$name/progress"
  if [ "$commit" -eq 1 ]; then
    published=("presets/results/$name" presets/results/index.html presets/results/README.md)
    git add "${published[@]}"
    # Only these paths: whatever else is staged in the working copy stays out of this commit.
    git commit -q -m "Results: $name at its reproduction length" -- "${published[@]}" || true
  fi
done
labs_down
