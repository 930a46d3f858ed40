# Device run 1 (session 19): the gated row copy with every column's load issued before any store
# (after) against one load-store pair at a time (before: the binary of b0b922a). GPU tests of the
# after binaries first (test_ranks on GPUs 0,1); --profile of the two-GPU step over bonsai's first
# 10,000 images, before and after side by side on GPUs 0,1 and 2,3, then swapped; then 30k-image
# two-GPU runs on both pairs at once, before and after swapped between the pairs.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt; nvidia-smi topo -m > $L/topo.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed-$gpus
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $run; }
{ for t in "test_kernels [gpu] 0" "test_ranks [gpu] 0,1"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
prof() { local g=$1 bin=$2 k=$3; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 --gpus 2 --out $R/prof-$bin-$k 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-$k.log; rm -rf $R/prof-$bin-$k; }
prof 0,1 before 1 & prof 2,3 after 1 & wait; prof 0,1 after 2 & prof 2,3 before 2 & wait; el "profiles"
pair() { local g=$1 a=$2 b=$3
  job $g $a bonsai g2-b4 0 --gpus 2 --batch-size 4; job $g $b bonsai g2-b4 1 --gpus 2 --batch-size 4
  job $g $a cup g2-b4 0 --gpus 2 --batch-size 4; job $g $b cup g2-b4 1 --gpus 2 --batch-size 4
  job $g $a bonsai g2-mcmc1m 0 --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; }
pair 0,1 before after & pair 2,3 after before & wait; el "two GPUs"
tar -C $L -cf $OUT/logs.tar .
