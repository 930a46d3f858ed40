# Device run 2 (session 15): MCMC with the anti-aliased projection as a quality candidate, and the
# two-GPU targets with the filter. GPUs 2 and 3 first run the two-GPU jobs (bonsai: batch 8 default,
# batch 4 MCMC cap 1M; seeds 0, 1), one after the other, then join GPUs 0 and 1 in taking one-GPU jobs
# from one queue, longest first, each alone on its GPU: bonsai batch 1 default and MCMC (cap 1M) seeds
# 0-2, batch 4 MCMC cap 1M and cap 1.35M (the default's count) seeds 0-2; cup batch 4 MCMC cap 1M and
# 500k (about the default's count) seeds 0-4, evaluated per view.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1 2; do echo "bonsai mcmc1m-b1 $s --batch-size 1 --strategy mcmc --cap-max 1000000" >> $Q; done
for s in 0 1 2; do echo "bonsai base-b1 $s --batch-size 1" >> $Q; done
for s in 0 1 2; do echo "bonsai mcmc1350k $s --batch-size 4 --strategy mcmc --cap-max 1350000" >> $Q; done
for s in 0 1 2; do echo "bonsai mcmc1m $s --batch-size 4 --strategy mcmc --cap-max 1000000" >> $Q; done
for s in 0 1 2 3 4; do echo "cup mcmc1m $s --batch-size 4 --strategy mcmc --cap-max 1000000" >> $Q; done
for s in 0 1 2 3 4; do echo "cup mcmc500k $s --batch-size 4 --strategy mcmc --cap-max 500000" >> $Q; done
echo 0 > $Q.n
take() { flock $Q.lock bash -c "n=\$(cat $Q.n); echo \$((n+1)) > $Q.n; echo \$n"; }
job() { local gpus=$1 scene=$2 tag=$3 seed=$4; shift 4
  local run=$R/$scene-$tag-s$seed
  echo "gpu $gpus start $(( $(date +%s) - t0 )) s: $scene $tag $seed $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$gpus ./splatlab train gpu-data/$scene --seed $seed "$@" --out $run > $L/train-$scene-$tag-s$seed.log 2>&1
  [ $scene = cup ] && CUDA_VISIBLE_DEVICES=${gpus%%,*} ./splatlab eval $run > $L/eval-$scene-$tag-s$seed.txt 2>&1
  rm -rf $run; }
lane() { local gpu=$1
  while true; do
    local n=$(take); local line=$(sed -n "$((n+1))p" $Q); [ -n "$line" ] || break
    [ $(( $(date +%s) - t0 )) -gt 480 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    job $gpu $line
  done; }
two() { for s in 0 1; do job 2,3 bonsai g2-b8 $s --gpus 2 --batch-size 8; done
        for s in 0 1; do job 2,3 bonsai g2-mcmc1m $s --gpus 2 --batch-size 4 --strategy mcmc --cap-max 1000000; done
        lane 2 & lane 3 & wait; }
lane 0 & lane 1 & two & wait; el "runs"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
