# Device run 7: the final tree's binaries (x, 67815fd: the own rows of a gated exchange on a second
# stream) against run 6's w (54b7453). Every [gpu] suite of x, test_ranks and test_app on both GPUs;
# x's two-GPU timeline over bonsai's first 6,000 images at batch 4; bonsai 30k at batch 4 on two GPUs,
# w and x alternated, seeds 0, 1, 2. (Run 8 follows on the same machine: the one-GPU runs and the other
# targets; cup travels there, since both would not fit one upload.)
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_x build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_x "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/x-g2b4.csv ./splatlab_x train gpu-data/bonsai --seed 0 --images 6000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-x-g2b4.log
xz -T8 -6 -c $R/x-g2b4.csv > $L/x-g2b4.csv.xz; rm -rf $R/t; el trace
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu${g/,/}.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $scene $seed $*"; }
for s in 0 1 2; do job w 0,1 bonsai $s --batch-size 4 --gpus 2; job x 0,1 bonsai $s --batch-size 4 --gpus 2; done
