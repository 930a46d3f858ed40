# Device run 1 (session 18): the gated exchange with the kept rows packed on the sender (after) against
# the rows read in place across the link (before: 61b4df6). Two-GPU jobs on GPUs 0,1 and on GPUs 2,3 at
# once, before and after alternated so that each binary runs each job once on each pair; the GPU tests
# first on GPUs 0,1; then the one-GPU baselines (after binary: the one-GPU step has no exchange), four
# at once; then --profile of the two-GPU step at batch 4, before and after side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt; nvidia-smi topo -m > $L/topo.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local gpus=$1 bin=$2 scene=$3 tag=$4 seed=$5; shift 5
  local run=$R/$bin-$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $bin $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$bin-$scene-$tag-s$seed.log 2>&1
  cp $run/metrics.jsonl $L/metrics-$bin-$scene-$tag-s$seed.jsonl 2>/dev/null
  rm -rf $run; }
tests() {
  { s=$(date +%s); CUDA_VISIBLE_DEVICES=0,1 timeout 120 ./test_kernels "[gated_rows]" > $L/test_gated_rows.txt 2>&1
    echo "test_kernels [gated_rows] (2 GPUs) rc=$? $(tail -2 $L/test_gated_rows.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"
    for t in "test_kernels [gpu]" "test_core [gpu]"; do set -- $t; s=$(date +%s)
      CUDA_VISIBLE_DEVICES=0 timeout 120 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done
    s=$(date +%s); CUDA_VISIBLE_DEVICES=0,1 timeout 120 ./test_ranks "[gpu]" > $L/test_ranks.txt 2>&1
    echo "test_ranks [gpu] rc=$? $(tail -2 $L/test_ranks.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; } > $L/tests.txt; }
# pair P runs binary A on seed 0 and B on seed 1; the other pair the opposite.
pair() { local g=$1 a=$2 b=$3
  job $g $a bonsai g2-b4 0 --gpus 2 --batch-size 4; job $g $b bonsai g2-b4 1 --gpus 2 --batch-size 4
  job $g $b cup g2-b4 0 --gpus 2 --batch-size 4;    job $g $a cup g2-b4 1 --gpus 2 --batch-size 4
  job $g $a bonsai g2-b8 0 --gpus 2 --batch-size 8; job $g $b bonsai g2-b8 1 --gpus 2 --batch-size 8
  job $g $b bonsai g2-mcmc1m 0 --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000
  job $g $a bonsai g2-mcmc1m 1 --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; }
{ tests; el "tests"; pair 0,1 before after; el "pair 0,1"; } & { pair 2,3 after before; el "pair 2,3"; } & wait
job 0 after bonsai b4 0 --batch-size 4 & job 1 after bonsai b4 1 --batch-size 4 &
job 2 after bonsai b1 0 --batch-size 1 & job 3 after bonsai b1 1 --batch-size 1 & wait; el "one GPU bonsai"
job 0 after cup b4 0 --batch-size 4 & job 1 after cup b4 1 --batch-size 4 &
job 2 after bonsai mcmc1m 0 --batch-size 4 --strategy mcmc --cap-max 1000000 &
job 3 after bonsai mcmc1m 1 --batch-size 4 --strategy mcmc --cap-max 1000000 & wait; el "one GPU cup, mcmc"
prof() { local g=$1 bin=$2; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 --gpus 2 --out $R/prof-$bin > $L/prof-$bin.log 2>&1; rm -rf $R/prof-$bin; }
prof 0,1 before & prof 2,3 after & wait; el "profiles"
tar -C $L -cf $OUT/logs.tar .
