# Device run 5 (session 21): four lanes adding the warp sums (new: this tree) against one (old: the
# binary of 7500487). Every [gpu] suite of the new binaries first (test_ranks on GPUs 0,1); then 30k
# runs with seed 1 (run 4 had seed 0), old and new side by side each alone on its GPU, and two GPUs at
# batch 4 with the new binary (GPUs 2,3) for the two-GPU ratio.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab_new build/app/splatlab
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 1" "test_ui [gpu] 2" "test_ranks [gpu] 0,1" "test_app [gpu] 2,3"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
job 0 new bonsai 1 --batch-size 1 & job 1 old bonsai 1 --batch-size 1 &
{ job 2,3 new bonsai 0 --batch-size 4 --gpus 2; job 2,3 new bonsai 1 --batch-size 4 --gpus 2; job 2,3 old bonsai 1 --batch-size 4 --gpus 2; } & wait
job 0 new bonsai 1 --batch-size 4 & job 1 old bonsai 1 --batch-size 4 & job 2 new cup 1 --batch-size 1 & job 3 old cup 1 --batch-size 1 & wait
el "30k"
tar -C $L -cf $OUT/logs.tar .
