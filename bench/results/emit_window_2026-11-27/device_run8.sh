# Device run 8: run 7's new [gpu] test with larger Gaussians (its scene held 17.7 entries a pair, fewer
# than the test requires), then test_kernels "[gpu]" whole.
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
s=$(date +%s); ./test_kernels_new "CUDA tile entries staged*" -s > $L/test_kernels-entry-stores.txt 2>&1
echo "entry stores rc=$? $(tail -2 $L/test_kernels-entry-stores.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt
s=$(date +%s); ./test_kernels_new "[gpu]" > $L/test_kernels-gpu.txt 2>&1
echo "test_kernels [gpu] rc=$? $(tail -2 $L/test_kernels-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt
grep -m3 "tile entries" $L/test_kernels-entry-stores.txt >> $L/tests.txt
tar -C $L -cf $OUT/logs.tar .
