# Device run 4: kernel durations of bonsai's steps at batch 1 around image 3,000 (ncu, every kernel
# of about three steps), to see what the depth sort stage is made of on a trained scene.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
CUDA_VISIBLE_DEVICES=0 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
  --launch-skip 70000 --launch-count 160 ./splatlab_n train gpu-data/bonsai --seed 0 --images 3200 --out $R/nc > $L/ncu-bonsai-b1.csv 2> $L/ncu-bonsai-b1.err
tail -3 $L/ncu-bonsai-b1.err > $L/tail.txt
tar -C $L -cf $OUT/logs.tar .
