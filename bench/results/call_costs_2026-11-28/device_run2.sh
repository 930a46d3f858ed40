# Device run 2: device timelines (bench/trace/kernel_trace.cpp, CUPTI) of main's binary (00f9c4b) over
# bonsai's first 10,000 images at batch 4: one GPU alone on GPU 0 beside one GPU at batch 1 on GPU 1,
# then two GPUs; the idle gaps of the last 70 % of each (bench/trace/trace_gaps.py). Then the two-GPU
# run again without the tracer, for its cost.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_m build/app/splatlab
ls /usr/local/cuda*/bin 2>/dev/null | grep -i nsys > $L/nsys.txt
trc() { local g=$1 tag=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$tag.csv ./splatlab_m train gpu-data/bonsai --seed 0 --images 10000 "$@" --out $R/o$tag 2>&1 \
    | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$tag.log
  python3 bench/trace/trace_gaps.py $R/$tag.csv --top 18 > $L/gaps-$tag.txt 2>&1; rm -rf $R/o$tag; }
trc 0 g1b4 --batch-size 4 & trc 1 g1b1 --batch-size 1 & wait; el one GPU
trc 0,1 g2b4 --batch-size 4 --gpus 2; el two GPUs
CUDA_VISIBLE_DEVICES=0,1 ./splatlab_m train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --gpus 2 --out $R/u \
  2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-g2b4-untraced.log; el untraced
for f in $R/*.csv; do xz -T8 -6 -c $f > $L/$(basename $f).xz; done; el xz
