# Device run 1: which backward blend blocks straggle. Trains bonsai 30k at batch 4 (MCMC cap 1M and the
# default strategy, both on the one GPU), then bench_tile_split in an experiment build whose backward blend
# writes a record per block (global timer at its start and end, SM, heavy-first position, chunk, the tile's
# and the chunk's entries, the entries below the tile's last contributor, warp walk steps, composited
# steps) for the last three calls of each size (chunks by share, 2 and 4 images a call).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:2}" --out $R/$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$1.log; el "model $1"; }
train mcmc --strategy mcmc --cap-max 1000000 & train default & wait
for m in mcmc default; do
  ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 8 --chunks -1 --batches 2,4 --trace $L/trace-$m > $L/bench-$m.log 2>&1
  el "trace $m"
done
