# Device run 3 (session 19), binary of the tree after the pushed exchange (8582787 + docs): GPU tests;
# --profile of one GPU and two at batch 4 over the same first 10,000 images, bonsai and cup (one GPU on
# GPUs 0 and 1 while GPUs 2,3 ran the two-GPU profiles one after the other); then the 30k-image targets:
# one GPU at batch 4 (GPUs 0, 1) and at batch 1 (GPU 0, 1) while GPUs 2,3 ran two GPUs at batch 4 and 8.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab build/app/
job() { local gpus=$1 scene=$2 tag=$3 seed=$4; shift 4
  local run=$R/$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/$scene --seed $seed "$@" --out $run 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$scene-$tag-s$seed.log
  rm -rf $run; }
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ranks [gpu] 0,1" "test_ui [gpu] 0,1,2,3" "test_app [gpu] 0,1,2,3"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
prof() { local g=$1 scene=$2 tag=$3; shift 3; CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/$scene --images 10000 --eval-every 0 \
  --log-every 10000 --profile --batch-size 4 "$@" --out $R/prof-$scene-$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$scene-$tag.log; rm -rf $R/prof-$scene-$tag; }
prof 0 bonsai g1 & prof 1 cup g1 & { prof 2,3 bonsai g2 --gpus 2; prof 2,3 cup g2 --gpus 2; } & wait; el "profiles"
one() { local g=$1 s=$2; job $g bonsai b4 $s --batch-size 4; job $g cup b4 $s --batch-size 4; job $g bonsai b1 $s --batch-size 1; }
two() { for s in 0 1; do job 2,3 bonsai g2-b4 $s --gpus 2 --batch-size 4; job 2,3 cup g2-b4 $s --gpus 2 --batch-size 4; job 2,3 bonsai g2-b8 $s --gpus 2 --batch-size 8; done; }
one 0 0 & one 1 1 & two & wait; el "targets"
tar -C $L -cf $OUT/logs.tar .
