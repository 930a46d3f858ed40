# Device run 2 (session 22): the forward blend's occupancy and the long tiles' lanes with the warp
# cells. Binaries: F6 (4907834: cells in the one-thread-per-pixel path, 6 blocks an SM), F5
# (5 blocks an SM, no spills), L6 / L5 (the lanes of long tiles walk their cells too), main (eef6f46).
# test_kernels [gpu] of every variant; --profile of bonsai's first 5,000 images at batch 1 and 10,000
# at batch 4, each variant on its own GPU, rotated once; bench_raster --quick; then the multi-GPU
# suites of F6 on GPUs 0,1 (test_ranks [gpu], [nccl], test_app [gpu]) while GPUs 2,3 train bonsai at
# batch 4 on two GPUs (F6, seeds 0 and 1); then 30k runs, seed 1: main and F6 side by side (bonsai
# batch 1 and 4, cup batch 1), and L6 and F5 with seed 0.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
V=(F6 F5 L6 L5)
four() { local P=(); for g in 0 1 2 3; do "$@" $g & P+=($!); done; wait "${P[@]}"; }
tk() { local v=${V[$1]}; CUDA_VISIBLE_DEVICES=$1 timeout 150 ./test_kernels_$v "[gpu]" > $L/test_kernels_$v.txt 2>&1; echo "test_kernels_$v [gpu] rc=$? $(tail -2 $L/test_kernels_$v.txt | tr '\n' ' ')" > $L/tk_$v.txt; }
four tk; cat $L/tk_*.txt > $L/tests.txt; el "test_kernels"
prof() { local g=$1 v=$2 b=$3 n=$4 r=$5; CUDA_VISIBLE_DEVICES=$g ./splatlab_$v train gpu-data/bonsai --images $n --eval-every 0 \
  --log-every $n --profile --batch-size $b --out $R/prof-$v-$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$v-b$b-r$r.log; rm -rf $R/prof-$v-$b; }
p1() { prof $1 ${V[$1]} 1 5000 0; prof $1 ${V[$1]} 4 10000 0; }
p2() { local v=${V[$(( ($1 + 1) % 4 ))]}; prof $1 $v 1 5000 1; prof $1 $v 4 10000 1; }
four p1; four p2; el "profiles"
br() { local v=${V[$1]}; CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$v --quick > $L/bench_raster_$v.txt 2>&1; }
four br; el "bench_raster"
mkdir -p build/app && cp splatlab_F6 build/app/splatlab
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $scene $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
{ for t in "test_ranks [gpu]" "test_ranks [nccl]" "test_app [gpu]"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=0,1 timeout 200 ./${1}_F6 "$2" > $L/$1-$2.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-$2.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } >> $L/tests.txt &
T=$!
{ job 2,3 F6 bonsai 0 --batch-size 4 --gpus 2; job 2,3 F6 bonsai 1 --batch-size 4 --gpus 2; } &
wait $T $!; el "multi-GPU"
{ job 0 main bonsai 1 --batch-size 1; job 0 main bonsai 1 --batch-size 4; job 0 main cup 1 --batch-size 1; } &
{ job 1 F6 bonsai 1 --batch-size 1; job 1 F6 bonsai 1 --batch-size 4; job 1 F6 cup 1 --batch-size 1; } &
{ job 2 L6 bonsai 0 --batch-size 1; job 2 L6 bonsai 0 --batch-size 4; job 2 L6 cup 0 --batch-size 1; } &
{ job 3 F5 bonsai 0 --batch-size 1; job 3 F5 bonsai 0 --batch-size 4; job 3 F5 cup 0 --batch-size 1; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
