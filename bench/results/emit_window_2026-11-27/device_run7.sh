# Device run 7: the tree with RasterSettings::entry_stores and its [gpu] test (large Gaussians, the
# entries staged, stored directly and chosen by the rule, against the CPU reference): test_kernels,
# test_core and test_ui "[gpu]", then bench_raster (the rule at 1M and 3M).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    timeout 200 ./${1}_new "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
./test_kernels_new "CUDA tile entries staged*" > $L/test_kernels-entry-stores.txt 2>&1; echo "entry stores rc=$? $(tail -2 $L/test_kernels-entry-stores.txt | tr '\n' ' ')" >> $L/tests.txt
tests "test_kernels [gpu]" "test_core [gpu]" "test_ui [gpu]"; el "tests"
./bench_raster_new > $L/bench_raster_new.txt 2>&1; el "bench_raster"
