# Device run 3: backward blocks held to the chunk share (n: kChunkShareEighths = 5, split where a tile is
# longer than a chunk and than the chunk share, records budget chunk_records_most_by_share) against main
# (o, 5a599b3). Every [gpu] suite on n; bench_tile_split on bonsai models trained in the run (MCMC cap 1M on
# GPU 0, default on GPU 1), o and n alternated twice; then whole 30k runs on two GPUs, o and n alternated
# (seeds 0 and 1): bonsai at batch 4, MCMC cap 1M at batch 4, cup at batch 4, bonsai at batch 8.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 300 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"
el tests
train() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_n train gpu-data/bonsai --seed 0 --batch-size 4 "${@:3}" --out $R/$2 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$2.log; el "model $2"; }
train 0 mcmc --strategy mcmc --cap-max 1000000 & train 1 default & wait
bench() { local g=$1 m=$2; for rep in 1 2; do for b in o n; do echo "== $b rep $rep" >> $L/bench-$m.log
  CUDA_VISIBLE_DEVICES=$g ./bench_tile_split_$b $R/$m/point_cloud.ply gpu-data/bonsai --calls 32 --chunks -1 --batches 1,2,4 >> $L/bench-$m.log 2>&1; done; done; el "bench $m"; }
bench 0 mcmc & bench 1 default & wait
job() { local b=$1 g=$2 seed=$3 scene=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $seed $scene $*"; }
M="--strategy mcmc --cap-max 1000000"
for a in "bonsai --batch-size 4 $M" "bonsai --batch-size 4" "cup --batch-size 4"; do
  job o 0,1 0 $a --gpus 2; job n 0,1 0 $a --gpus 2; job n 0,1 1 $a --gpus 2; job o 0,1 1 $a --gpus 2
done
job o 0,1 0 bonsai --batch-size 8 --gpus 2; job n 0,1 0 bonsai --batch-size 8 --gpus 2
