# Device run 1: the backward blend with two pixels a thread (each warp two 8 x 4 cells stacked, 128
# threads a block, 8 blocks an SM) against one (main). One binary, the variant picked by SPLAT_BWD_KP
# (an experiment-only switch). [gpu] suites under both on GPU 3; bench_raster --quick for each on
# GPUs 0 and 1, swapped once; bonsai/cup --profile runs of both side by side on GPUs 0-2.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }

{ for kp in 2 1; do for t in test_kernels test_core; do s=$(date +%s)
    SPLAT_BWD_KP=$kp CUDA_VISIBLE_DEVICES=3 timeout 150 ./$t "[gpu]" > $L/$t-kp$kp.txt 2>&1
    echo "$t kp$kp [gpu] rc=$? $(tail -2 $L/$t-kp$kp.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; done; } > $L/tests.txt &
TESTS=$!
braster() { SPLAT_BWD_KP=$1 CUDA_VISIBLE_DEVICES=$2 ./bench_raster --quick > $L/bench_raster_kp$1-r$3.txt 2>&1; }
braster 1 0 0 & braster 2 1 0 & wait; braster 2 0 1 & braster 1 1 1 & wait; el "bench_raster"
prof() { local g=$1 kp=$2 scene=$3 b=$4 n=$5; SPLAT_BWD_KP=$kp CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/$scene --images $n --eval-every 0 \
  --log-every $n --profile --batch-size $b --seed 0 --out $R/prof-$kp-$scene-$b-$n 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-kp$kp-$scene-b$b-$n.log; rm -rf $R/prof-$kp-$scene-$b-$n; }
prof 0 1 bonsai 1 5000 & prof 1 2 bonsai 1 5000 & prof 2 1 bonsai 1 1000 & wait
prof 0 2 bonsai 4 10000 & prof 1 1 bonsai 4 10000 & prof 2 2 bonsai 1 1000 & wait
prof 0 1 cup 1 5000 & prof 1 2 cup 1 5000 & wait; el "profiles"
wait $TESTS; el "tests done"
tar -C $L -cf $OUT/logs.tar .
