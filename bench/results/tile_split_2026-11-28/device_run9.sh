# Device run 9: why a two-image call's blends cost more per image than a four-image call's. ncu on
# bench_tile_split (final code, 70e9420) over models trained in the run (MCMC cap 1M on GPU 0, default on
# GPU 1): each blend kernel of 6 calls at 2 and 6 at 4 images a call (the first 2 of each are the bench's
# warm-up), chunks by share, with the SMs' active cycles (mean, least, most over the SMs) against the
# kernel's elapsed cycles: a tail shows as most >> mean.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { CUDA_VISIBLE_DEVICES=$1 ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:3}" --out $R/$2 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$2.log; el "model $2"; }
train 0 mcmc --strategy mcmc --cap-max 1000000 & train 1 default & wait
M=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__waves_per_multiprocessor
prof() { CUDA_VISIBLE_DEVICES=$1 timeout 200 ncu --clock-control none --cache-control none --kernel-name regex:blend_ \
    --metrics $M -o $R/ncu-$2 ./bench_tile_split $R/$2/point_cloud.ply gpu-data/bonsai --calls 4 --chunks -1 --batches 2,4 > $L/ncu-$2.log 2>&1
  ncu --import $R/ncu-$2.ncu-rep --csv --print-units base --page raw --metrics $M > $L/ncu-$2.csv 2>&1; el "ncu $2"; }
prof 0 mcmc & prof 1 default & wait
