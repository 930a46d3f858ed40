# Device run 10: the final tree (after depth_sort_key took float_bits): every [gpu] suite (the
# multi-GPU ones on GPUs 0,1), then bonsai 30k at batch 4, seed 0, on one GPU (GPU 2) and on two (0,1).
set -f
# (Its last grep ran under set -f and matched nothing; the training logs are in run10/.)
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab_new build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
job() { local g=$1; shift; CUDA_VISIBLE_DEVICES=$g ./splatlab_new train gpu-data/bonsai --seed 0 --batch-size 4 "$@" --out $R/r-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-bonsai-b4$(echo "$*" | tr -d ' -')-gpu$g.log; rm -rf $R/r-$g; }
tests "test_kernels [gpu] 3" "test_core [gpu] 3" "test_ui [gpu] 3" &
job 2 &
{ tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; job 0,1 --gpus 2; } &
wait; grep -h "^done" $L/train-*.log >> $L/tests.txt; tar -C $L -cf $OUT/logs.tar .
