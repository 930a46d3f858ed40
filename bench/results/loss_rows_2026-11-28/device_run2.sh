# Device run 2: the loss kernels with the halo staged (all of a thread's loads before its stores).
# Variants (output tile height / rows a thread / columns a thread in the horizontal pass / least blocks
# an SM for the register budget): S1 16/1/2/1, S2 16/1/2/3, S3 32/4/4/1, S4 32/4/4/4, S5 32/4/2/1;
# o = main (b834463). [gpu] suites of test_kernels and test_core (S3). ncu durations of the loss
# kernels (the training forward and backward, 40 launches after the first 200) at batch 4 and 1, then
# --profile over bonsai's first 5,000 images at batch 4, o and S1..S5 two at a time.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" & wait; el tests
nc() { local b=$1 g=$2 bs=$3
  CUDA_VISIBLE_DEVICES=$g ncu --clock-control none -k regex:"ssim_forward_kernel|loss_backward_kernel" --launch-skip 200 --launch-count 40 --metrics gpu__time_duration.sum --csv ./splatlab_$b train gpu-data/bonsai --seed 0 --images $((150 * bs)) --batch-size $bs --out $R/n$b$g > $L/ncu-$b-b$bs.csv 2>/dev/null; rm -rf $R/n$b$g; }
for bs in 4 1; do nc o 0 $bs & nc S1 1 $bs & wait; nc S2 0 $bs & nc S3 1 $bs & wait; nc S4 0 $bs & nc S5 1 $bs & wait; done; el ncu
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g.log; rm -rf $R/$b$g; }
for p in "o S1" "S2 S3" "S4 S5" "S1 o" "S3 S2" "S5 S4"; do set -- $p; prof $1 0 b4 --batch-size 4 & prof $2 1 b4 --batch-size 4 & wait; done; el profiles
