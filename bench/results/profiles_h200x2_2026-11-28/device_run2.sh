# Checks of bench/scaling_model.py at sixteen images a batch (main at 29c69d9, nvidia-h200-x2): one GPU
# (c = 16) and two GPUs (c = 8), the protocol of device_run.sh, each run alone on the machine.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus2.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order2.txt; tar -C $L -cf $OUT/logs.tar .; }
prof() { local name=$1 g=$2 b=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 5000 --profile --batch-size $b "$@" --out $R/$name 2>&1 | tr '\r' '\n' > $L/$name.txt
  el "$name"; }
prof g1b16 0 16
prof g2b16 0,1 16 --gpus 2
