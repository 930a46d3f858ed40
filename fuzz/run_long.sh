#!/usr/bin/env bash
# The long fuzzing campaign: every target for SECONDS seconds on all cores, starting from the seeds
# (corpus/), the inputs that once failed (regressions/) and the corpus kept by earlier campaigns
# (campaign_corpus/); then that corpus merged and minimised back into campaign_corpus/<target>/,
# which is kept in the repository (CI's short runs start from it too).
#   fuzz/run_long.sh SECONDS [FUZZ_BUILD_DIR [RUNS]]
# FUZZ_BUILD_DIR: default build/fuzz (the main build). RUNS: a target also stops after about that many
# executions in all (each of the parallel jobs runs its share). Environment: WORKERS (parallel jobs,
# default every core), TARGETS (names to run, e.g. "ply photo"; default every target).
# Prints one row per target: executions, failures, corpus files kept. A failing input is copied to
# FUZZ_BUILD_DIR/crashes/<target>/; the script then exits 1.
set -euo pipefail
seconds=${1:?usage: fuzz/run_long.sh SECONDS [FUZZ_BUILD_DIR [RUNS]]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${2:-$root/build/fuzz}" && pwd)
workers=${WORKERS:-$(nproc)}
runs_each=-1  # libFuzzer: no limit
[ -n "${3:-}" ] && runs_each=$(( ($3 + workers - 1) / workers ))
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
printf '| target | executions | failures | corpus files kept |\n|---|---|---|---|\n'
for exe in "$bin"/fuzz_*; do
  target=${exe##*/fuzz_}
  [ -x "$exe" ] && [ -d "$root/fuzz/corpus/$target" ] || continue  # fuzz_make_corpus and the like
  [ -z "${TARGETS:-}" ] || [[ " $TARGETS " == *" $target "* ]] || continue
  kept=$root/fuzz/campaign_corpus/$target
  dir=$work/$target
  mkdir -p "$dir/new" "$dir/crashes" "$dir/min" "$kept"
  inputs=("$root/fuzz/corpus/$target" "$kept")
  [ -d "$root/fuzz/regressions/$target" ] && inputs+=("$root/fuzz/regressions/$target")
  # -jobs: independent processes sharing the first corpus folder, each for the whole time; their
  # logs (fuzz-N.log) hold the statistics.
  (cd "$dir" && "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=128 \
    -runs="$runs_each" -print_final_stats=1 -artifact_prefix="$dir/crashes/" -jobs="$workers" -workers="$workers" \
    new "${inputs[@]}" > "$dir/main.log" 2>&1) || true
  runs=$(cat "$dir"/fuzz-*.log | awk '/^stat::number_of_executed_units:/ { s += $2 } END { print s + 0 }')
  failures=$(find "$dir/crashes" -type f | wc -l)
  if [ "$failures" -gt 0 ]; then
    failed=1
    mkdir -p "$bin/crashes/$target"
    cp "$dir"/crashes/* "$bin/crashes/$target/"
  fi
  # The smallest set of inputs that covers what all of them cover, replacing the kept corpus.
  "$exe" -merge=1 "$dir/min" "$kept" "$dir/new" "$root/fuzz/corpus/$target" > "$dir/merge.log" 2>&1
  find "$kept" -type f -delete
  cp "$dir"/min/* "$kept"/ 2>/dev/null || true
  printf '| %s | %s | %s | %s |\n' "$target" "${runs:-0}" "$failures" "$(find "$kept" -type f | wc -l)"
done
exit "$failed"
