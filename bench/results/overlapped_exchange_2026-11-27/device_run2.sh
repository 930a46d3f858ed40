# Device run 2 (session 21): the step's gated exchanges overlapped (after: this tree, the sender writes
# its rows into its peers beside its stream, and without waiting for them where the previous exchange
# linked the streams) against in stream order (before: the binary of 7500487). GPU tests of the after
# binaries first (test_ranks on GPUs 0,1; test_app's mpirun against --gpus 2); --profile of the two-GPU
# step over bonsai's first 10,000 images, before and after side by side on GPUs 0,1 and 2,3, then
# swapped; 30k-image two-GPU runs on both pairs at once, swapped; then one GPU per run.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed-$gpus
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $run; }
mkdir -p build/app && cp splatlab_after build/app/splatlab
{ for t in "test_ranks [gpu] 0,1" "test_app [gpu] 0,1"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
prof() { local g=$1 bin=$2 k=$3; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 --gpus 2 --out $R/prof-$bin-$k 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-$k.log; rm -rf $R/prof-$bin-$k; }
prof 0,1 before 1 & prof 2,3 after 1 & wait; prof 0,1 after 2 & prof 2,3 before 2 & wait; el "profiles"
pair() { local g=$1 a=$2 b=$3
  job $g $a bonsai g2-b4 0 --gpus 2 --batch-size 4; job $g $b bonsai g2-b4 1 --gpus 2 --batch-size 4
  job $g $a cup g2-b4 0 --gpus 2 --batch-size 4; job $g $b cup g2-b4 1 --gpus 2 --batch-size 4
  job $g $a bonsai g2-b8 0 --gpus 2 --batch-size 8; job $g $b bonsai g2-b8 1 --gpus 2 --batch-size 8
  job $g $a bonsai g2-mcmc 0 --gpus 2 --batch-size 4 --strategy mcmc; }
pair 0,1 before after & pair 2,3 after before & wait; el "two GPUs"
job 0 before bonsai g1-b4 0 --batch-size 4 & job 1 after bonsai g1-b4 0 --batch-size 4 &
job 2 after bonsai g1-b4 1 --batch-size 4 & job 3 before bonsai g1-b4 1 --batch-size 4 & wait; el "one GPU"
tar -C $L -cf $OUT/logs.tar .
