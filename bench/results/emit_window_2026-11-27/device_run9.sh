# Device run 9: four GPUs on the final tree (732dfbd): bonsai 30k, seed 0, batch 4, 8 and 16, each run
# alone on the machine (one GPU at batch 4 is run 6's).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
for b in 4 8 16; do
  ./splatlab_new train gpu-data/bonsai --seed 0 --batch-size $b --gpus 4 --out $R/g4 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-new-bonsai-batchsize${b}gpus4-s0.log
  rm -rf $R/g4; grep -h "^done" $L/train-new-bonsai-batchsize${b}gpus4-s0.log >> $L/done.txt
done
tar -C $L -cf $OUT/logs.tar .
