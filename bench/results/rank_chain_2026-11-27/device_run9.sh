# Device run 9: the pairs cross without their global ids (48 bytes instead of 56; n = this tree, o = 9315105).
# [gpu] suites (n; test_ranks and test_app on both GPUs); --profile of two-GPU runs over bonsai's first
# 10,000 images at batch 4, o and n alternated (default twice each, MCMC cap 1M once each); then 30k
# two-GPU runs at batch 4, o and n alternated (default seed 0, MCMC seed 0). Each run's last metrics line
# is kept (bytes_sent per rank and step).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
run() { local b=$1 tag=$2; shift 2
  CUDA_VISIBLE_DEVICES=0,1 ./splatlab_$b train gpu-data/bonsai --seed 0 --gpus 2 --batch-size 4 "$@" --out $R/$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/$tag-$b.log
  tail -1 $R/$b/metrics.jsonl > $L/$tag-$b.metrics.json; rm -rf $R/$b; }
M="--strategy mcmc --cap-max 1000000"
for k in 1 2; do run o prof-def$k --images 10000 --profile; run n prof-def$k --images 10000 --profile; done
run o prof-mcmc --images 10000 --profile $M; run n prof-mcmc --images 10000 --profile $M; el profiles
run o def30k; run n def30k; run o mcmc30k $M; run n mcmc30k $M; el 30k
