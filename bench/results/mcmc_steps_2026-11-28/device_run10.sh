# Device run 10: the final binary (aa3a739), bonsai 30k at batch 4, seed 0: one GPU, then two GPUs.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
for g in 0 0,1; do n=$(echo $g | tr ',' ' ' | wc -w)
  CUDA_VISIBLE_DEVICES=$g ./splatlab_n train gpu-data/bonsai --seed 0 --batch-size 4 --gpus $n --out $R/$n 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-n-gpus$n-s0.log
  rm -rf $R/$n; done
tar -C $L -cf $OUT/logs.tar .
