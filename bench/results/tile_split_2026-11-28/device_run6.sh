# Device run 6: every [gpu] suite on the final code (n, 70e9420; 381ccf5 adds only records), two GPUs: test_kernels, test_core and
# test_ui on GPU 0; test_ranks ([gpu]: 2 and 4 ranks on one GPU, 2 ranks on 2 GPUs, the early ready
# token; [nccl]) and test_app ([gpu]: mpirun against --gpus 2 included) on GPUs 0,1.
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 300 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"
tar -C $L -cf $OUT/logs.tar .
