# Device run 10: the final tree (eda546e): test_ui's [gpu] cases (run 9 ran the other suites on it).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
s=$(date +%s); timeout 200 ./test_ui_n "[gpu]" > $L/test_ui-gpu.txt 2>&1
echo "test_ui [gpu] rc=$? $(tail -2 $L/test_ui-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt
tar -C $L -cf $OUT/logs.tar .
