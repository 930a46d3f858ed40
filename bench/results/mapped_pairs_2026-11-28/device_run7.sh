# Device run 7: test_app [gpu] on GPUs 0,1 again, its mpirun comparison leaving out the memory breakdown
# (run 6 failed there: workspace_mb differed between the threads' mapped exchange and NCCL's, 0.25 and
# 0.06 MB); the binaries of d312e40 with that test change.
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_app [gpu] 0,1"
tar -C $L -cf $OUT/logs.tar .
