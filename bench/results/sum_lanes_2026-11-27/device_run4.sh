# Device run 4 (session 21): the backward blend's warp sums stopped at 2, 4 or 8 partial sums, each
# added by its own lane's atomics, against the full butterfly (1 lane adds; main's kernel). Binaries
# _lN built from this tree with SPLAT_SUM_LANES N (kernels/cuda/blend_backward.cu). test_kernels [gpu]
# of each variant; bench_raster --quick, each variant on its own GPU, then rotated once; --profile of
# bonsai's first 5,000 images at batch 1 and 10,000 at batch 4; 30k runs at batch 1 (bonsai, cup) and 4
# (bonsai), seed 0, each variant alone on its GPU.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
V=(1 2 4 8)
{ for v in 2 4 8; do s=$(date +%s); CUDA_VISIBLE_DEVICES=0 timeout 120 ./test_kernels_l$v "[gpu]" > $L/test_kernels_l$v.txt 2>&1
    echo "test_kernels_l$v [gpu] rc=$? $(tail -2 $L/test_kernels_l$v.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
for r in 0 1; do for g in 0 1 2 3; do v=${V[$(( (g + r) % 4 ))]}
  CUDA_VISIBLE_DEVICES=$g ./bench_raster_l$v --quick > $L/bench_raster_l$v-r$r.txt 2>&1 & done; wait; done; el "bench_raster"
prof() { local g=$1 v=$2 b=$3 n=$4; CUDA_VISIBLE_DEVICES=$g ./splatlab_l$v train gpu-data/bonsai --images $n --eval-every 0 \
  --log-every $n --profile --batch-size $b --out $R/prof-$v-$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-l$v-b$b.log; rm -rf $R/prof-$v-$b; }
for g in 0 1 2 3; do prof $g ${V[$g]} 1 5000 & done; wait
for g in 0 1 2 3; do prof $g ${V[$(( (g + 1) % 4 ))]} 4 10000 & done; wait; el "profiles"
job() { local g=$1 v=$2 scene=$3 b=$4; CUDA_VISIBLE_DEVICES=$g ./splatlab_l$v train gpu-data/$scene --seed 0 --batch-size $b \
  --out $R/$v-$scene-$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-l$v-$scene-b$b.log; rm -rf $R/$v-$scene-$b; }
for g in 0 1 2 3; do v=${V[$g]}; { job $g $v bonsai 1; job $g $v cup 1; job $g $v bonsai 4; } & done; wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
