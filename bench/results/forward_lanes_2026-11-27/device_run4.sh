# Device run 4 (session 17): eight lanes per pixel on long tiles (lanes8) against four (lanes4, 52304b3).
# GPU 0: the lanes8 rasterizer tests, then one-GPU profiles at batch 1 and 4; GPU 1: bench_raster --quick
# of both, twice; GPUs 2 and 3: the two-GPU profile, then two-GPU whole runs alternated; then every GPU
# takes one-GPU whole runs (bonsai and cup at batch 1, seeds 0 and 1, alternated) from one queue.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1; do for b in lanes4 lanes8; do echo "$b bonsai b1 $s --batch-size 1" >> $Q; done; done
for s in 0 1; do for b in lanes4 lanes8; do echo "$b cup b1 $s --batch-size 1" >> $Q; done; done
echo 0 > $Q.n
take() { flock $Q.lock bash -c "n=\$(cat $Q.n); echo \$((n+1)) > $Q.n; echo \$n"; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$bin-$scene-$tag-s$seed.log 2>&1
  rm -rf $run; }
lane() { local gpu=$1
  while true; do
    local n=$(take); local line=$(sed -n "$((n+1))p" $Q); [ -n "$line" ] || break
    [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    job $gpu $line
  done; }
g0() { s=$(date +%s); CUDA_VISIBLE_DEVICES=0 timeout 120 ./test_kernels "[raster]" > $L/test_kernels.txt 2>&1
       echo "test_kernels [raster] (lanes8) rc=$? $(tail -2 $L/test_kernels.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" > $L/tests.txt
       CUDA_VISIBLE_DEVICES=0 bash bench/profile_ab.sh ./splatlab_lanes4 ./splatlab_lanes8 gpu-data/bonsai $L/prof1 5000 "--batch-size 1" "--batch-size 4" > $L/prof1.txt 2>&1; el "prof1"; lane 0; }
g1() { for i in 1 2; do for b in lanes4 lanes8; do CUDA_VISIBLE_DEVICES=1 ./bench_raster_$b --quick > $L/raster_$b$i.txt 2>&1; done; done; el "bench_raster"; lane 1; }
g23() { CUDA_VISIBLE_DEVICES=2,3 bash bench/profile_ab.sh ./splatlab_lanes4 ./splatlab_lanes8 gpu-data/bonsai $L/prof2 10000 "--batch-size 4 --gpus 2" > $L/prof2.txt 2>&1; el "prof2"
        for s in 0 1; do for b in lanes4 lanes8; do job 2,3 $b bonsai g2-b4 $s --gpus 2 --batch-size 4; done; done; el "g2 runs"
        lane 2 & lane 3 & wait; }
g0 & g1 & g23 & wait; el "all"
tar -C $L -cf $OUT/logs.tar .
