# Device run 3: the device timelines of run 2 again (main's binary, 00f9c4b), over bonsai's first 6,000
# images at batch 4, one GPU (GPU 0) and two, kept (xz) for a step-by-step reading.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
mkdir -p build/app && cp splatlab_m build/app/splatlab
trc() { local g=$1 tag=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
    KERNEL_TRACE_OUT=$R/$tag.csv ./splatlab_m train gpu-data/bonsai --seed 0 --images 6000 "$@" --out $R/o$tag 2>&1 \
    | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$tag.log
  python3 bench/trace/trace_gaps.py $R/$tag.csv --top 24 > $L/gaps-$tag.txt 2>&1; rm -rf $R/o$tag
  xz -T8 -6 -c $R/$tag.csv > $L/$tag.csv.xz; }
trc 0 g1b4 --batch-size 4; el one GPU
trc 0,1 g2b4 --batch-size 4 --gpus 2; el two GPUs
