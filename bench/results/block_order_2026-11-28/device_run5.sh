# Device run 5: for the next step. An experiment build of n (29c69d9) whose forward blend writes a record
# per block (global timer at start and end, SM, heavy-first position, part, lanes or not, the tile's
# entries, its last contributor) for bench_tile_split's last three calls at 2 and 4 images a call, on
# bonsai models trained in the run (MCMC cap 1M and the default strategy); and ncu on n's backward blend
# (MCMC's model, 2 and 4 images a call; SM active cycles mean, least, most against elapsed cycles).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:2}" --out $R/$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$1.log; el "model $1"; }
train mcmc --strategy mcmc --cap-max 1000000 & train default & wait
for m in mcmc default; do
  ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 8 --chunks -1 --batches 2,4 --trace $L/ftrace-$m > $L/bench-$m.log 2>&1
  el "trace $m"
done
M=gpu__time_duration.sum,gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.min,sm__cycles_active.max
timeout 150 ncu --clock-control none --cache-control none --kernel-name regex:blend_backward --metrics $M -o $R/ncu-mcmc \
  ./bench_tile_split $R/mcmc/point_cloud.ply gpu-data/bonsai --calls 4 --chunks -1 --batches 2,4 > $L/ncu-mcmc.log 2>&1
ncu --import $R/ncu-mcmc.ncu-rep --csv --print-units base --page raw --metrics $M > $L/ncu-mcmc.csv 2>&1; el "ncu mcmc"
