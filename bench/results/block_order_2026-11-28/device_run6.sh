# Device run 6: for the next step. An experiment build of n (29c69d9) whose forward blend gives lanes to
# the split tiles longer than SPLAT_LANES_EIGHTHS eighths of its even share (8: as built). Trains the two
# bonsai models (MCMC cap 1M, default) on the one GPU, then bench_tile_split at 1, 2, 4 images a call,
# chunks by share, lanes past 8/8, 7/8 and 6/8 of the forward's share, each twice in turn.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:2}" --out $R/$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$1.log; el "model $1"; }
train mcmc --strategy mcmc --cap-max 1000000 & train default & wait
for rep in 1 2; do for m in mcmc default; do for v in 8 7 6; do
  echo "== $m lanes_eighths $v rep $rep" >> $L/bench-$m.log
  SPLAT_LANES_EIGHTHS=$v ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 32 --chunks -1 --batches 1,2,4 >> $L/bench-$m.log 2>&1
done; el "bench $m rep $rep"; done; done
