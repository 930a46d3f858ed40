# Device run 5: the backward at two pixels a thread, retuned. Binaries of the tree after run 4 with the
# lanes that add a Gaussian's warp sums at 4 (x4, as landed), 2 (x2) or 8 (x8); x4 also with the
# backward's chunks at 256 entries instead of 512 (SPLAT_CHUNK, an experiment-only override: "x4c").
# Each round runs the four variants at once, one a GPU, rotated between rounds: --profile of bonsai
# (batch 1, 5,000 images; batch 4, 10,000), cup (batch 1, 5,000) and bench_raster --quick.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
V=(x4 x4c x2 x8)
bin() { echo ${1%c}; }
env_of() { [ "${1: -1}" = c ] && echo 256 || echo 0; }
prof() { local g=$1 v=$2 scene=$3 b=$4 n=$5; local c=$(env_of $v)
  SPLAT_CHUNK=$c CUDA_VISIBLE_DEVICES=$g ./splatlab_$(bin $v) train gpu-data/$scene --images $n --eval-every 0 --log-every $n \
    --profile --batch-size $b --seed 0 --out $R/p-$v-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$v-$scene-b$b.log; rm -rf $R/p-$v-$g; }
braster() { local g=$1 v=$2; SPLAT_CHUNK=$(env_of $v) CUDA_VISIBLE_DEVICES=$g ./bench_raster_$(bin $v) --quick > $L/bench_raster_$v.txt 2>&1; }
round() { local r=$1; shift; for g in 0 1 2 3; do "$@" $g ${V[$(( (g + r) % 4 ))]} & done; wait; }
p1() { prof $1 $2 bonsai 1 5000; }; p4() { prof $1 $2 bonsai 4 10000; }; c1() { prof $1 $2 cup 1 5000; }
round 0 p1; round 1 p4; round 2 c1; round 3 braster; el "done"
tar -C $L -cf $OUT/logs.tar .
