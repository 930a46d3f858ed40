# Device run 2 (one H200: no two-GPU machine was lent at 09:45 UTC): the owners reading their pairs'
# gradients where the renderers computed them (n, fb18c48) against the projection into the renderers'
# columns alone (m, 1df3b35) and main's step (o, aa3a739). The [gpu] tests of the stages and the ranks
# (ranks sharing the GPU); bonsai 30k at batch 4 with 2 ranks on the one GPU, o, m and n in turn, seed 0;
# one GPU, one rank, o and n alternated, seed 0.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [stages] 0" "test_ranks [gpu] 0" "test_ranks [nccl] 0"; el tests
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for b in o m n; do job $b 0 0 --batch-size 4 --ranks 2; done
for b in o n; do job $b 0 0 --batch-size 4; done
