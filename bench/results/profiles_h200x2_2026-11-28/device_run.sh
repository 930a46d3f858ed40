# The inputs of bench/scaling_model.py for today's step (main at 29c69d9, Release sm_90), on nvidia-h200-x2:
# bonsai, first 10,000 images, default strategy, --profile, as the model's protocol says; plus two
# checks outside its fit (one GPU at batch 8: c = 8; two GPUs at batch 2: c = 1). One-GPU runs two at a
# time, one per GPU; two-GPU runs alone.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt; nvidia-smi topo -m > $L/topo.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
prof() { local name=$1 g=$2 b=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 5000 --profile --batch-size $b "$@" --out $R/$name 2>&1 | tr '\r' '\n' > $L/$name.txt
  el "$name"; }
prof g1b2 0 2 & prof g1b4 1 4 & wait
prof g1b8 0 8 & prof g1b1 1 1 & wait
prof g2b4 0,1 4 --gpus 2
prof g2b8 0,1 8 --gpus 2
prof g2b2 0,1 2 --gpus 2
