# Device run 2: chunks by the call's share (n, the working tree after 44b6bda) against main's fixed
# 512 (o, 44b6bda). test_kernels [gpu] on n; bench_tile_split on freshly trained models (MCMC cap 1M and
# the default strategy, bonsai 30k at batch 4) with chunks by share against fixed lengths; then whole
# runs, o and n: one GPU side by side (GPUs 0 and 1, swapped for the second seed) and two GPUs one
# binary after the other, for MCMC at batch 4, bonsai at batch 4, batch 1 on one GPU and batch 8 on two.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
s=$(date +%s); CUDA_VISIBLE_DEVICES=0 ./test_kernels_n "[gpu]" > $L/test_kernels-gpu.txt 2>&1
echo "test_kernels [gpu] rc=$? $(tail -2 $L/test_kernels-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; el tests
train() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_n train gpu-data/bonsai --seed 0 --batch-size 4 "${@:3}" --out $R/$2 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/model-$2.log; el "model $2"; }
train 0 mcmc --strategy mcmc --cap-max 1000000 & train 1 default & wait
bench() { CUDA_VISIBLE_DEVICES=$1 ./bench_tile_split $R/$2/point_cloud.ply gpu-data/bonsai --calls 32 --chunks -1,512,1024,2048,4096 --batches 1,2,4 > $L/bench-$2.log 2>&1; el "bench $2"; }
bench 0 mcmc & bench 1 default & wait
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
M="--strategy mcmc --cap-max 1000000"
job o 0 0 --batch-size 4 $M & job n 1 0 --batch-size 4 $M & wait
job n 0 1 --batch-size 4 $M & job o 1 1 --batch-size 4 $M & wait
for s in 0 1; do job o 0,1 $s --batch-size 4 --gpus 2 $M; job n 0,1 $s --batch-size 4 --gpus 2 $M; done
job o 0 0 --batch-size 4 & job n 1 0 --batch-size 4 & wait
job o 0,1 0 --batch-size 4 --gpus 2; job n 0,1 0 --batch-size 4 --gpus 2
job n 0 0 --batch-size 1 & job o 1 0 --batch-size 1 & wait
job o 0,1 0 --batch-size 8 --gpus 2; job n 0,1 0 --batch-size 8 --gpus 2
