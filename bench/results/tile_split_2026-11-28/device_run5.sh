# Device run 5: the forward blend's lanes on every tile the backward splits (split: an experiment build of
# 70e9420) against only those past its own even share as well (70e9420):
# bench_tile_split on bonsai models trained in the run (MCMC cap 1M on GPU 0, default on GPU 1), chunks
# by share, 1, 2 and 4 images a call, the two builds alternated twice.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }


train() { CUDA_VISIBLE_DEVICES=$1 ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:3}" --out $R/$2 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$2.log; el "model $2"; }
train 0 mcmc --strategy mcmc --cap-max 1000000 & train 1 default & wait
bench() { for round in 1 2; do for v in "" _split; do echo "== bench_tile_split$v round $round" >> $L/bench-$2.log
  CUDA_VISIBLE_DEVICES=$1 ./bench_tile_split$v $R/$2/point_cloud.ply gpu-data/bonsai --calls 48 --chunks -1 --batches 1,2,4 >> $L/bench-$2.log 2>&1; done; done; el "bench $2"; }
bench 0 mcmc & bench 1 default & wait
