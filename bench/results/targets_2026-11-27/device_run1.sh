# Device run 1 (session 17): the multi-GPU and AMP targets with the default of aa997df (revised opacity,
# growth at 1.5e-4), one binary of HEAD. GPUs 2 and 3 first run the two-GPU jobs one after the other
# (bonsai batch 8 and MCMC cap 1M batch 4, cup batch 4; seeds 0, 1), then join GPUs 0 and 1 in taking
# one-GPU jobs from one queue, longest first, each alone on its GPU. Then bench_raster alone on GPU 0,
# with its 100k case's kernels under ncu.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1; do echo "bonsai b1 $s --batch-size 1" >> $Q; done
for s in 0 1; do echo "bonsai b1-amp $s --batch-size 1 --amp" >> $Q; done
for s in 0 1; do echo "bonsai mcmc1m $s --batch-size 4 --strategy mcmc --cap-max 1000000" >> $Q; done
for s in 0 1; do echo "bonsai b4 $s --batch-size 4" >> $Q; done
for s in 0 1; do echo "bonsai b4-amp $s --batch-size 4 --amp" >> $Q; done
for s in 0 1; do echo "cup b4 $s --batch-size 4" >> $Q; done
echo 0 > $Q.n
take() { flock $Q.lock bash -c "n=\$(cat $Q.n); echo \$((n+1)) > $Q.n; echo \$n"; }
job() { local gpus=$1 scene=$2 tag=$3 seed=$4; shift 4
  local run=$R/$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$scene-$tag-s$seed.log 2>&1
  cp $run/metrics.jsonl $L/metrics-$scene-$tag-s$seed.jsonl 2>/dev/null
  rm -rf $run; }
lane() { local gpu=$1
  while true; do
    local n=$(take); local line=$(sed -n "$((n+1))p" $Q); [ -n "$line" ] || break
    [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    job $gpu $line
  done; }
two() { for s in 0 1; do job 2,3 bonsai g2-b8 $s --gpus 2 --batch-size 8; done
        for s in 0 1; do job 2,3 bonsai g2-mcmc1m $s --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; done
        for s in 0 1; do job 2,3 cup g2-b4 $s --gpus 2 --batch-size 4; done
        lane 2 & lane 3 & wait; }
lane 0 & lane 1 & two & wait; el "runs"
CUDA_VISIBLE_DEVICES=0 ./bench_raster > $L/bench_raster.txt 2>&1; el "bench_raster"
CUDA_VISIBLE_DEVICES=0 ncu --clock-control none --print-summary per-kernel ./bench_raster --profile 100000 > $L/ncu_100k.txt 2>&1; el "ncu"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
