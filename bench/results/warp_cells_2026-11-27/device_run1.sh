# Device run 1 (session 22): the blending kernels' warps walk only the Gaussians that reach their 8 x 4
# cell (kernels/cuda/warp_cells.cuh), against main's kernels (eef6f46). Binaries: _main (eef6f46),
# _new (the cells, 8 forward / 6 backward blocks an SM, as main), _occ (the cells, 6 forward / 5
# backward blocks an SM: no spills in the backward). One-GPU [gpu] suites on GPU 3 while bench_raster
# --quick runs each variant on its own GPU (0-2), rotated once; then --profile of bonsai's first
# 5,000 images at batch 1 and 10,000 at batch 4; then 30k runs at batch 1 (bonsai, cup) and 4
# (bonsai), seed 0, each variant alone on its GPU.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
V=(main new occ)

{ for t in test_kernels_new test_kernels_occ test_core_new test_ui_new; do s=$(date +%s)
    CUDA_VISIBLE_DEVICES=3 timeout 150 ./$t "[gpu]" > $L/$t.txt 2>&1
    echo "$t [gpu] rc=$? $(tail -2 $L/$t.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt &
TESTS=$!
three() { local P=(); for g in 0 1 2; do "$@" $g & P+=($!); done; wait "${P[@]}"; }
braster() { local r=$1 g=$2 v=${V[$(( (g + r) % 3 ))]}; CUDA_VISIBLE_DEVICES=$g ./bench_raster_$v --quick > $L/bench_raster_$v-r$r.txt 2>&1; }
three braster 0; three braster 1; el "bench_raster"
prof() { local g=$1 v=$2 b=$3 n=$4; CUDA_VISIBLE_DEVICES=$g ./splatlab_$v train gpu-data/bonsai --images $n --eval-every 0 \
  --log-every $n --profile --batch-size $b --out $R/prof-$v-$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$v-b$b.log; rm -rf $R/prof-$v-$b; }
p1() { prof $1 ${V[$1]} 1 5000; }; p4() { prof $1 ${V[$(( ($1 + 1) % 3 ))]} 4 10000; }
three p1; three p4; el "profiles"
wait $TESTS; el "tests done"
job() { local g=$1 v=$2 scene=$3 b=$4; CUDA_VISIBLE_DEVICES=$g ./splatlab_$v train gpu-data/$scene --seed 0 --batch-size $b \
  --out $R/$v-$scene-$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$v-$scene-b$b.log; rm -rf $R/$v-$scene-$b; }
for g in 0 1 2; do v=${V[$g]}; { job $g $v bonsai 1; job $g $v cup 1; job $g $v bonsai 4; } & done
{ job 3 new bonsai 4; job 3 main bonsai 4; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
