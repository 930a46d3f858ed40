# Device run 11: every [gpu] suite on the final tree (078b927f), test_ranks and
# test_app on both GPUs.
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab_f build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_f "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"
tar -C $L -cf $OUT/logs.tar .
