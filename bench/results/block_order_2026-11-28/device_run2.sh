# Device run 2: where to split. An experiment build of main (per-block trace in the backward blend, and
# tile_chunks.cu reading SPLAT_SPLIT_AT_CHUNK: 0 splits tiles that outlast the call's even share, as main
# does, 1 every tile longer than a chunk; SPLAT_EIGHTHS: the chunk's length in eighths of the share, 6 as
# main). Trains the two bonsai models as run 1 did, then bench_tile_split at 1, 2, 4 images a call, chunks
# by share, each variant twice in turn, and traces of (1, 6).
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
train() { ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "${@:2}" --out $R/$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$1.log; el "model $1"; }
train mcmc --strategy mcmc --cap-max 1000000 & train default & wait
for rep in 1 2; do for m in mcmc default; do for v in 0,6 1,6 1,5 1,4 1,7; do
  echo "== $m split_at_chunk,eighths $v rep $rep" >> $L/bench-$m.log
  SPLAT_SPLIT_AT_CHUNK=${v%,*} SPLAT_EIGHTHS=${v#*,} ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 32 --chunks -1 --batches 1,2,4 >> $L/bench-$m.log 2>&1
done; el "bench $m rep $rep"; done; done
for m in mcmc default; do
  SPLAT_SPLIT_AT_CHUNK=1 SPLAT_EIGHTHS=6 ./bench_tile_split $R/$m/point_cloud.ply gpu-data/bonsai --calls 8 --chunks -1 --batches 2,4 --trace $L/trace-$m > /dev/null 2>&1
done; el traces
