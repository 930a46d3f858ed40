# Device run 1: the loss kernels with several output rows a thread in the vertical passes.
# Variants (kernels/cuda/loss_cuda.cu, output tile height / rows a thread / columns a thread in the
# horizontal pass): A 32/4/4, B 16/4/4, C 32/4/2, E 32/8/4; o = main (b834463: 16/1/2).
# [gpu] suites of test_kernels and test_core (A); --profile over bonsai's first 5,000 images at batch 1
# and 4, two variants at a time on GPUs 0 and 1, each variant on both GPUs over the pairs.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait; el tests
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do set -- $t
  for p in "o A" "B C" "E o" "A B" "C E"; do set -- $p "$@"; prof $1 0 $3 $4 $5 & prof $2 1 $3 $4 $5 & wait; shift 2; done; el $1; done
for f in $L/prof-*.log; do echo "$(basename $f) $(grep -E '^  loss ' $f | awk '{print $3}') $(grep 'loop wall' $f | sed 's/.*loop wall time //')"; done > $L/summary.txt
el done
