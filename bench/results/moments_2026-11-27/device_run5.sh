# Device run 5: where a whole 30k run's step goes on the final tree: --profile over all 30,000 images,
# bonsai and cup at batch 1 (seed 0), and bonsai at batch 4, each alone on its GPU.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
prof() { CUDA_VISIBLE_DEVICES=$1 ./splatlab_n train gpu-data/$2 --profile --batch-size $3 --seed 0 --out $R/p-$1 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof30k-$2-b$3.log; rm -rf $R/p-$1; }
prof 0 bonsai 1 & prof 1 cup 1 & prof 2 bonsai 4 & wait
tar -C $L -cf $OUT/logs.tar .
