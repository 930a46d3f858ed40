# Device run 4: the emission's two ways in one binary (e): staged in shared memory (EXP_EMIT=1),
# direct stores (EXP_EMIT=0), and the rule (unset: staged where the entries outgrow the L2 cache),
# against the emission before any staging (p, 4bd9b89's binning on the current tree).
# [gpu] suites of e in both ways; bench_raster; bonsai/cup --profile over 5,000 images at batch 1 and 4;
# then 30k runs of e (rule) against p: bonsai batch 1 (seeds 0, 1), bonsai batch 4 and cup batch 1.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
tests() { local m=$1; shift; for t in "$@"; do set -- $t; s=$(date +%s)
    EXP_EMIT=$m CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_e "$2" > $L/$1-${2//[\[\]]/}-m$m.txt 2>&1; echo "$1 $2 EXP_EMIT=$m rc=$? $(tail -2 $L/$1-${2//[\[\]]/}-m$m.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
braster() { local g=$1 bin=$2 m=$3; if [ -n "$m" ]; then export EXP_EMIT=$m; else unset EXP_EMIT; fi
  CUDA_VISIBLE_DEVICES=$g ./bench_raster_$bin > $L/bench_raster_$bin$m.txt 2>&1; unset EXP_EMIT; }
tests 0 "test_kernels [gpu] 3" "test_core [gpu] 3" & T=$!
braster 0 e 0 & braster 1 e 1 & braster 2 p & wait $T; tests 1 "test_kernels [gpu] 3" "test_core [gpu] 3"; wait; el "bench_raster, tests"
prof() { local g=$1 bin=$2 m=$3 scene=$4 b=$5; if [ -n "$m" ]; then export EXP_EMIT=$m; else unset EXP_EMIT; fi
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --images 5000 --eval-every 0 \
  --log-every 5000 --profile --batch-size $b --seed 0 --out $R/prof-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin$m-$scene-b$b-5000.log; rm -rf $R/prof-$g; unset EXP_EMIT; }
for sb in "bonsai 1" "bonsai 4" "cup 1"; do prof 0 e 0 $sb & prof 1 e 1 $sb & prof 2 e "" $sb & prof 3 p "" $sb & wait; done; el "profiles"
job() { local g=$1 bin=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/$scene --seed $seed "$@" --out $R/$bin-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$bin-$scene-$tag-s$seed.log
  rm -rf $R/$bin-$g; }
{ job 0 e bonsai 0 --batch-size 1; job 0 p bonsai 1 --batch-size 1; } & { job 1 p bonsai 0 --batch-size 1; job 1 e bonsai 1 --batch-size 1; } &
{ job 2 e bonsai 0 --batch-size 4; job 2 p cup 0 --batch-size 1; } & { job 3 p bonsai 0 --batch-size 4; job 3 e cup 0 --batch-size 1; } & wait
el "30k"
