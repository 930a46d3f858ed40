# Device run 4 (one H100: no two-GPU machine could be started): the projection backward's SH rest rows
# staged with asynchronous copies (p, 48088d0 + the cp.async staging) against 48088d0 (o). Every [gpu]
# suite of p (test_ranks' and test_app's two ranks share the GPU; the NCCL case needs two GPUs);
# bench_raster --quick o, p, p, o; --profile over bonsai's first 5,000 images at batch 1, 4 and 1 with
# --amp, o and p in turn; 30k bonsai at batch 1, o then p.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_p build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_p "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ui [gpu] 0" "test_ranks [gpu] 0" "test_app [gpu] 0"; el tests
br() { CUDA_VISIBLE_DEVICES=0 ./bench_raster_$1 --quick > $L/bench_raster_$1_$2.txt 2>&1; }
br o r1; br p r1; br p r2; br o r2; el bench_raster
prof() { local b=$1 tag=$2; shift 2
  CUDA_VISIBLE_DEVICES=0 ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag.log; rm -rf $R/$b; }
for t in "b1 --batch-size 1" "b4 --batch-size 4" "b1amp --batch-size 1 --amp"; do set -- $t; prof o "$@"; prof p "$@"; done; el profiles
job() { local b=$1 scene=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=0 ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed.log
  rm -rf $R/$b-$scene-$seed; }
job o bonsai 0 --batch-size 1; job p bonsai 0 --batch-size 1; el "bonsai b1"
