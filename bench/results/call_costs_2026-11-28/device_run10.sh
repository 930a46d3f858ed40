# Device run 10: the shipped kernel_trace (one writer for copies and memsets) on the final binary:
# bonsai's first 3,000 images at batch 4 on two GPUs, traced, and trace_gaps.py over it.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab_x build/app/splatlab
CUDA_VISIBLE_DEVICES=0,1 LD_LIBRARY_PATH=$PWD:$LD_LIBRARY_PATH CUDA_INJECTION64_PATH=$PWD/libkernel_trace.so \
  KERNEL_TRACE_OUT=$R/t.csv ./splatlab_x train gpu-data/bonsai --seed 0 --images 3000 --batch-size 4 --gpus 2 \
  --out $R/t 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/trace.log
head -3 $R/t.csv > $L/head.csv; grep -m2 '^memcpy\|^memset' $R/t.csv >> $L/head.csv; wc -l $R/t.csv > $L/lines.txt
python3 bench/trace/trace_gaps.py $R/t.csv --top 6 > $L/gaps.txt 2>&1
tar -C $L -cf $OUT/logs.tar .
