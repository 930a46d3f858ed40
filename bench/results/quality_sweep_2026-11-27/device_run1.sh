# Device run 1 (session 15): quality candidates at batch 4, 30k images, each run alone on one GPU of four,
# the jobs taken from one queue, longest first. Bonsai seeds 0-2: default (anti-aliased), --grow-grad2d
# 1.5e-4 and 1.2e-4, --opacity-reg 0.001, MCMC --cap-max 600000 (the compact mode). Cup seeds 0-4:
# default, --opacity-reg 0.001, --grow-grad2d 1.5e-4, each evaluated per view.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
Q=/tmp/queue; : > $Q
for s in 0 1 2; do echo "bonsai g12 $s --grow-grad2d 0.00012" >> $Q; done
for s in 0 1 2; do echo "bonsai mcmc600k $s --strategy mcmc --cap-max 600000" >> $Q; done
for s in 0 1 2; do echo "bonsai g15 $s --grow-grad2d 0.00015" >> $Q; done
for s in 0 1 2; do echo "bonsai base $s" >> $Q; echo "bonsai op001 $s --opacity-reg 0.001" >> $Q; done
for s in 0 1 2 3 4; do echo "cup g15 $s --grow-grad2d 0.00015" >> $Q; done
for s in 0 1 2 3 4; do echo "cup base $s" >> $Q; echo "cup op001 $s --opacity-reg 0.001" >> $Q; done
echo 0 > $Q.n
take() { flock $Q.lock bash -c "n=\$(cat $Q.n); echo \$((n+1)) > $Q.n; echo \$n"; }
lane() { local gpu=$1
  while true; do
    local n=$(take); local line=$(sed -n "$((n+1))p" $Q); [ -n "$line" ] || break
    [ $(( $(date +%s) - t0 )) -gt 500 ] && { echo "skipped (time): $line" >> $L/skipped.txt; continue; }
    set -- $line; local scene=$1 tag=$2 seed=$3; shift 3
    local run=$R/$scene-$tag-s$seed
    echo "gpu $gpu start $(( $(date +%s) - t0 )) s: $line" >> $L/order.txt
    CUDA_VISIBLE_DEVICES=$gpu ./splatlab train gpu-data/$scene --batch-size 4 --seed $seed "$@" --out $run > $L/train-$scene-$tag-s$seed.log 2>&1
    [ $scene = cup ] && CUDA_VISIBLE_DEVICES=$gpu ./splatlab eval $run > $L/eval-$scene-$tag-s$seed.txt 2>&1
    rm -rf $run
  done; }
for g in 0 1 2 3; do lane $g & done
wait; el "runs"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
