# Device run 6: the suites' two-GPU cases on the final code (n, d312e40: 0aa7d44 with the mapped collectives' posts filled field by field): test_ranks ([gpu], [nccl]) and
# test_app on GPUs 0,1; bonsai 30k at batch 4 on two GPUs, n, seeds 0, 1; on one GPU, n against main's
# step (o, aa3a739) side by side (GPUs 0 and 1, swapped for seed 1).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1; do job n 0,1 $s --batch-size 4 --gpus 2; done
job n 0 0 --batch-size 4 & job o 1 0 --batch-size 4 & wait
job o 0 1 --batch-size 4 & job n 1 1 --batch-size 4 & wait
