# Device run 3: the tree with two pixels a thread in the backward blend and 24-bit depth keys (new)
# against the binary of runs 1-2 (_b) at two pixels (SPLAT_BWD_KP=2, "b2": the depth keys' before) and
# at one (SPLAT_BWD_KP=1, "b1": main's kernels). One-GPU [gpu] suites of new on GPU 3 while bench_raster
# (full: 100k, 1M, 3M) runs new, b2, b1 on GPUs 0-2; bonsai --profile at batch 1 (5,000 images) of the
# three; the multi-GPU suites on GPUs 0,1; then 30k runs: bonsai batch 1 new against b2 (seeds 0, 1) and
# new's one-GPU batch-4 runs on GPUs 0 and 1, new's two-GPU targets on GPUs 2,3.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab_new build/app/splatlab
# job GPU BIN KP SCENE SEED FLAGS...
job() { local g=$1 bin=$2 kp=$3 scene=$4 seed=$5; shift 5; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin kp$kp $scene $seed $*" >> $L/order.txt
  SPLAT_BWD_KP=$kp CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin$kp-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$scene-$seed-$g; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_new "$2" > $L/$1-$2.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-$2.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 3" "test_core [gpu] 3" "test_ui [gpu] 3" &
T=$!
braster() { SPLAT_BWD_KP=$3 CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 > $L/bench_raster_$2$3.txt 2>&1; }
braster 0 new 2 & braster 1 b 2 & braster 2 b 1 & wait; el "bench_raster"
prof() { local g=$1 bin=$2 kp=$3; SPLAT_BWD_KP=$kp CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size 1 --seed 0 --out $R/prof-$bin$kp 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin$kp-bonsai-b1-5000.log; rm -rf $R/prof-$bin$kp; }
prof 0 new 2 & prof 1 b 2 & prof 2 b 1 & wait; wait $T; el "profiles, one-GPU tests"
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el "multi-GPU tests"
M="--strategy mcmc --cap-max 1000000"
{ job 0 new 2 bonsai 0 --batch-size 1; job 0 b 2 bonsai 1 --batch-size 1; job 0 new 2 bonsai 0 --batch-size 4; job 0 new 2 cup 0 --batch-size 4; } &
{ job 1 b 2 bonsai 0 --batch-size 1; job 1 new 2 bonsai 1 --batch-size 1; job 1 new 2 bonsai 1 --batch-size 4; job 1 new 2 cup 1 --batch-size 4; } &
{ for s in 0 1; do job 2,3 new 2 bonsai $s --batch-size 4 --gpus 2; job 2,3 new 2 bonsai $s --batch-size 8 --gpus 2; job 2,3 new 2 cup $s --batch-size 4 --gpus 2; done
  job 2,3 new 2 bonsai 0 --batch-size 4 --gpus 2 $M; job 2 new 2 bonsai 0 --batch-size 4 $M; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
