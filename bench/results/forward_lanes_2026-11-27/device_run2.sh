# Device run 2 (session 17): the forward blend with lanes on long tiles (after) against HEAD (before).
# GPUs 0 and 1: the GPU tests of the after binaries, the two-GPU profiles and whole runs (before and
# after alternated), then the queue. GPU 2: bench_raster --quick before and after twice, then the
# queue. GPU 3: the one-GPU profiles (bonsai's first 5,000 images at batch 1 and 4), then the queue.
# The queue: whole 30k runs, each alone on its GPU, before and after alternated per seed.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1; do for b in before after; do echo "$b bonsai b1 $s --batch-size 1" >> $Q; done; done
for s in 0 1; do for b in before after; do echo "$b cup b1 $s --batch-size 1" >> $Q; done; done
for s in 0 1; do for b in before after; do echo "$b bonsai b4 $s --batch-size 4" >> $Q; done; done
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
    [ $(( $(date +%s) - t0 )) -gt 430 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    job $gpu $line
  done; }
tests() {
  { for t in "test_kernels [gpu]" "test_core [gpu]"; do set -- $t; s=$(date +%s)
      CUDA_VISIBLE_DEVICES=0 timeout 120 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done
    s=$(date +%s); CUDA_VISIBLE_DEVICES=0,1 timeout 120 ./test_ranks "[gpu]" > $L/test_ranks.txt 2>&1
    echo "test_ranks [gpu] rc=$? $(tail -2 $L/test_ranks.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; } > $L/tests.txt; }
g01() { tests; el "tests"
  CUDA_VISIBLE_DEVICES=0,1 bash bench/profile_ab.sh ./splatlab_before ./splatlab_after gpu-data/bonsai $L/prof2 10000 "--batch-size 4 --gpus 2" > $L/prof2.txt 2>&1; el "prof2"
  for s in 0; do for b in before after; do job 0,1 $b bonsai g2-b4 $s --gpus 2 --batch-size 4; done; done
  for b in before after; do job 0,1 $b cup g2-b4 0 --gpus 2 --batch-size 4; done; el "g2 runs"
  lane 0 & lane 1 & wait; }
g2() { for i in 1 2; do for b in before after; do CUDA_VISIBLE_DEVICES=2 ./bench_raster_$b --quick > $L/raster_$b$i.txt 2>&1; done; done; el "bench_raster"; lane 2; }
g3() { CUDA_VISIBLE_DEVICES=3 bash bench/profile_ab.sh ./splatlab_before ./splatlab_after gpu-data/bonsai $L/prof1 5000 "--batch-size 1" "--batch-size 4" > $L/prof1.txt 2>&1; el "prof1"; lane 3; }
g01 & g2 & g3 & wait; el "all"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
