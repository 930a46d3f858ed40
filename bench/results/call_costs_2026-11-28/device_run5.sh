# Device run 5: the in-process exchange with the peers' rows first and the done token before the own
# rows (r, 96255711) against the tree before it (n, bffe844). test_ranks [gpu] and [nccl] of r; r's
# two-GPU timeline over bonsai's first 6,000 images at batch 4; bonsai 30k at batch 4 on two GPUs,
# n and r alternated, seeds 0, 1, 2.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_r build/app/splatlab
for t in "[gpu]" "[nccl]"; do s=$(date +%s); CUDA_VISIBLE_DEVICES=0,1 timeout 200 ./test_ranks_r "$t" > $L/test_ranks-${t//[\[\]]/}.txt 2>&1
  echo "test_ranks $t rc=$? $(tail -2 $L/test_ranks-${t//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; el tests
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/r-g2b4.csv ./splatlab_r train gpu-data/bonsai --seed 0 --images 6000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace-r-g2b4.log
xz -T8 -6 -c $R/r-g2b4.csv > $L/r-g2b4.csv.xz; rm -rf $R/t; el trace
job() { local b=$1 g=$2 seed=$3; shift 3; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed $seed "$@" --out $R/$b-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$tag-s$seed-gpu${g/,/}.log
  cp $R/$b-$seed-$g/metrics.jsonl $L/train-$b-$tag-s$seed-gpu${g/,/}.metrics.jsonl; rm -rf $R/$b-$seed-$g; el "$b $g $seed $*"; }
for s in 0 1 2; do job n 0,1 $s --batch-size 4 --gpus 2; job r 0,1 $s --batch-size 4 --gpus 2; done
