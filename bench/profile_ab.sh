#!/usr/bin/env bash
# Where a step's time goes under two splatlab binaries, side by side in one device run: each
# configuration (a list of train flags) trains the scene's first IMAGES images with --profile under
# BEFORE, then AFTER, and the rasterizer stages and step phases of both are printed next to each other.
#   bench/profile_ab.sh BEFORE AFTER SCENE OUT [IMAGES] [CONFIG...]
#   e.g. bench/profile_ab.sh ./before ./splatlab data/bonsai out 10000 "--batch-size 4" "--batch-size 4 --gpus 2"
# OUT receives each run's whole log (CONFIG's flags in its name). CONFIG defaults to "--batch-size 4".
set -euo pipefail
before=$1 after=$2 scene=$3 out=$4 images=${5:-10000}
shift $(( $# < 5 ? $# : 5 ))
configs=("$@"); ((${#configs[@]})) || configs=("--batch-size 4")
mkdir -p "$out"
for flags in "${configs[@]}"; do
  tag=$(tr -c 'a-z0-9\n' '_' <<<"${flags// /}" | tr -d '\n')
  for which in before after; do
    bin=$before; [ "$which" = after ] && bin=$after
    run=$(mktemp -d)/run
    # shellcheck disable=SC2086 # flags is a list of words
    "$bin" train "$scene" --images "$images" --eval-every 0 --log-every "$images" --profile $flags --out "$run" \
      > "$out/$tag-$which.log" 2>&1
    rm -rf "$(dirname "$run")"
  done
  echo "== $flags ($images images; ms/step before -> after)"
  # Rows "  <name>   total s   ms/step ..." of both tables, joined on the name.
  join -t'|' -a1 -a2 -e- -o '0,1.2,2.2' \
    <(awk '/^  [a-z]/ { n = $0; sub(/ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.%]+$/, "", n); sub(/^ +/, "", n); if (NF >= 6 && $1 != "sum") print n "|" $(NF-3) }' \
      "$out/$tag-before.log" | sort -t'|' -k1,1) \
    <(awk '/^  [a-z]/ { n = $0; sub(/ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.%]+$/, "", n); sub(/^ +/, "", n); if (NF >= 6 && $1 != "sum") print n "|" $(NF-3) }' \
      "$out/$tag-after.log" | sort -t'|' -k1,1) | awk -F'|' '{ printf "  %-40s %8s -> %8s\n", $1, $2, $3 }'
  for which in before after; do echo "  $which: $(grep -E '^evaluation|loop wall' "$out/$tag-$which.log" | head -1)"; done
done
