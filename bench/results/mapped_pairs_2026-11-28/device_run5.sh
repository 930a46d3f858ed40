# Device run 5 (one H200: no two-GPU machine was lent from 09:58 to 10:10 UTC): every [gpu] suite on the
# final code (n, 0aa7d44: the projection and its backward specialised for destinations and gradient
# sources, so that one rank's kernels compile as before; the suites' cases for two GPUs skip here), then
# bonsai 30k at batch 4 on the one GPU, n against main's step (o, aa3a739), alternated, seeds 0, 1.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0" "test_app [gpu] 0"; el tests
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
job o 0 0 --batch-size 4; job n 0 0 --batch-size 4; job n 0 1 --batch-size 4; job o 0 1 --batch-size 4
