# Device run 1: what a call of two images costs per image against four, on trained models. Trains bonsai
# 30k at batch 4 with MCMC (cap 1M, GPU 0) and the default strategy (GPU 1), then times the rasterizer's
# stages per image (bench_tile_split) at 1, 2 and 4 images a call for backward chunk lengths 0-2048, and
# with the chunk records' budget at 1 (as built), 4 and 16 records a tile (SPLAT_RECORDS: an experiment
# build of tile_chunks.cu, not the committed code).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { CUDA_VISIBLE_DEVICES=$1 ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:3}" --out $R/$2 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$2.log; el "train $2"; }
train 0 mcmc --strategy mcmc --cap-max 1000000 & train 1 default & wait
bench() { local g=$1 m=$2 rec=$3; shift 3; echo "== $m records $rec $*" >> $L/bench-$m.log
  CUDA_VISIBLE_DEVICES=$g SPLAT_RECORDS=$rec ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 32 "$@" >> $L/bench-$m.log 2>&1; }
sweep() { local g=$1 m=$2
  bench $g $m 1 --chunks 0,256,512,1024,2048 --batches 1,2,4
  bench $g $m 4 --chunks 256,512,1024 --batches 1,2,4
  bench $g $m 16 --chunks 256,512,1024 --batches 1,2,4
  el "bench $m"; }
sweep 0 mcmc & sweep 1 default & wait
