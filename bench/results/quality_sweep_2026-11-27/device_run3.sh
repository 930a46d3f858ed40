# Device run 3 (session 15): why MCMC trains bonsai 0.6 dB lower at batch 1 than at batch 4. A build of
# b4a0ec7 whose MCMC strategy scales its regulariser weights and its noise from the environment
# (SPLAT_MCMC_REG_SCALE, SPLAT_MCMC_OPREG_SCALE, SPLAT_MCMC_NOISE_SCALE; an experiment, not committed).
# Bonsai, MCMC cap 1M, 30k images, seeds 0 and 1, each run alone on one GPU of four, jobs from one queue.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1; do
  echo "b1-reg050 $s 1 SPLAT_MCMC_REG_SCALE=0.5" >> $Q
  echo "b1-reg025 $s 1 SPLAT_MCMC_REG_SCALE=0.25" >> $Q
  echo "b1-noise050 $s 1 SPLAT_MCMC_NOISE_SCALE=0.5" >> $Q
  echo "b1-opreg050 $s 1 SPLAT_MCMC_OPREG_SCALE=0.5" >> $Q
done
for s in 0 1; do echo "b2 $s 2 X=1" >> $Q; echo "b4-reg200 $s 4 SPLAT_MCMC_REG_SCALE=2" >> $Q; done
echo 0 > $Q.n
take() { flock $Q.lock bash -c "n=\$(cat $Q.n); echo \$((n+1)) > $Q.n; echo \$n"; }
lane() { local gpu=$1
  while true; do
    local n=$(take); local line=$(sed -n "$((n+1))p" $Q); [ -n "$line" ] || break
    [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    set -- $line; local tag=$1 seed=$2 b=$3 env=$4
    echo "gpu $gpu start $(( $(date +%s) - t0 )) s: $line" >> $L/order.txt
    env $env CUDA_VISIBLE_DEVICES=$gpu ./splatlab train gpu-data/bonsai --strategy mcmc --cap-max 1000000 --batch-size $b --seed $seed --out $R/$tag-s$seed > $L/train-$tag-s$seed.log 2>&1
    rm -rf $R/$tag-s$seed
  done; }
for g in 0 1 2 3; do lane $g & done
wait; el "runs"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
