# Device run 6: the final code (f, f786976: render costs folded only where they are learned) on two GPUs:
# the [gpu] suites that train through the trainer (test_core, test_ranks with [nccl], test_app), and
# bonsai 30k at batch 4, seed 0, on one GPU and on two (one after the other).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_f build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 300 ./${1}_f "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_core [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
job() { local g=$1; shift; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_f train gpu-data/bonsai --seed 0 "$@" --out $R/f-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-f-bonsai$tag-s0-gpu${g/,/}.log
  rm -rf $R/f-$g; el "f $g $*"; }
job 0 --batch-size 4; job 0,1 --batch-size 4 --gpus 2
