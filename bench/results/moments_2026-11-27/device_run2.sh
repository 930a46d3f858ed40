# Device run 2: (1) ncu's kernel durations of bench_raster's one-camera case (three forward+backward
# calls) at 100k and 1M Gaussians, to see how much of a call is kernels and how much the gaps between
# them; (2) the emission staged wherever slots average 16 entries (n, no L2 condition; with the tile
# ranges of run 1) against main's rule (o, 0512403): bench_raster --quick swapped between GPUs 2 and 3,
# then bonsai (batch 1, 4) and cup (batch 1) --profile over 5,000 images, o and n side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
N="ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base"
for n in 100000 1000000; do CUDA_VISIBLE_DEVICES=$(( n / 1000000 )) timeout 300 $N ./bench_raster_n --profile $n > $L/ncu_durations_$n.csv 2> $L/ncu_$n.err & done
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 --quick > $L/bench_raster_$2_gpu$1_$3.txt 2>&1; }
{ braster 2 o a & braster 3 n a & wait; braster 2 n b & braster 3 o b & wait; } & wait; el "ncu, bench_raster"
prof() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_$2 train gpu-data/$3 --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $4 --seed 0 --out $R/prof-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$2-$3-b$4-5000.log; rm -rf $R/prof-$1; }
prof 0 o bonsai 1 & prof 1 n bonsai 1 & prof 2 o bonsai 4 & prof 3 n bonsai 4 & wait
prof 0 o cup 1 & prof 1 n cup 1 & wait; el "profiles"
