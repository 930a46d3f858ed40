# Device run 4 (session 15, nvidia-h100-x2): MCMC's regulariser weights per four images (a0dacd0's
# build): bonsai MCMC cap 1M at batch 1 (seeds 0, 1) and batch 2 (seed 0), each alone on a GPU;
# --profile of 10,000 images at batch 4, MCMC against default; then two GPUs at batch 8 with MCMC (seeds
# 0, 1). GPU 1 first runs test_core's [gpu] and [strategy_mcmc] cases.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tr() { local gpus=$1 tag=$2; shift 2
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $tag $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/bonsai "$@" --out $R/$tag > $L/train-$tag.log 2>&1; rm -rf $R/$tag; }
M="--strategy mcmc --cap-max 1000000"
( tr 0 mcmc-b1-s0 $M --batch-size 1 --seed 0; tr 0 mcmc-b2-s0 $M --batch-size 2 --seed 0 ) &
( CUDA_VISIBLE_DEVICES=1 ./test_core "[gpu],[strategy_mcmc]" > $L/test_core.log 2>&1; echo "test_core [gpu],[strategy_mcmc] rc=$? $(tail -2 $L/test_core.log | head -1)" >> $L/tests.txt
  tr 1 mcmc-b1-s1 $M --batch-size 1 --seed 1
  tr 1 prof-mcmc-b4 $M --batch-size 4 --images 10000 --profile
  tr 1 prof-default-b4 --batch-size 4 --images 10000 --profile ) &
wait
for s in 0 1; do tr 0,1 g2-mcmc-b8-s$s $M --gpus 2 --batch-size 8 --seed $s; done
wait; el "runs"
cat $L/tests.txt
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
