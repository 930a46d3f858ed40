# Device run 5: each warp of the emission chooses: staged where its 32 slots average more than
# EXP_STAGE_ABOVE entries (s4, s8, s16), direct stores otherwise; against the emission before any
# staging (p). [gpu] suites of s8; bench_raster; bonsai/cup --profile over 5,000 images; 30k runs of s8
# against p; then --profile of s8 over 10,000 bonsai images at batch 4 on one GPU and on two.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_s8 "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { CUDA_VISIBLE_DEVICES=$1 ./bench_raster_$2 > $L/bench_raster_$2.txt 2>&1; }
braster 0 s4 & braster 1 s8 & braster 2 s16 & braster 3 p & wait; tests "test_kernels [gpu] 0" "test_core [gpu] 0"; el "bench_raster, tests"
prof() { local g=$1 bin=$2 scene=$3 b=$4; CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $b --seed 0 --out $R/prof-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-$scene-b$b-5000.log; rm -rf $R/prof-$g; }
for sb in "bonsai 1" "bonsai 4" "cup 1"; do prof 0 s4 $sb & prof 1 s8 $sb & prof 2 s16 $sb & prof 3 p $sb & wait; done; el "profiles"
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$g; }
{ job 0 s8 bonsai 0 --batch-size 1; job 0 p bonsai 1 --batch-size 1; } & { job 1 p bonsai 0 --batch-size 1; job 1 s8 bonsai 1 --batch-size 1; } &
{ job 2 s8 bonsai 0 --batch-size 4; job 2 p cup 0 --batch-size 1; } & { job 3 p bonsai 0 --batch-size 4; job 3 s8 cup 0 --batch-size 1; } & wait
el "30k"
p2() { local g=$1 n=$2; CUDA_VISIBLE_DEVICES=$g ./splatlab_s8 train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 10000 --profile \
  --batch-size 4 --gpus $n --seed 0 --out $R/p2-$n 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-s8-bonsai-b4-gpus$n-10000.log; rm -rf $R/p2-$n; }
p2 0 1 & p2 2,3 2 & wait; el "1- and 2-GPU profiles"
