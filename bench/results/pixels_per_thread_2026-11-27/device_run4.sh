# Device run 4: the forward blend's lanes on long tiles measured against the forward's own even share
# (its occupancy, 6 blocks of 256 an SM: 792 slots) instead of the backward's (now 1056, at two pixels
# a thread). One binary; SPLAT_FWD_SLOTS (an experiment-only override) sets the forward's slots: unset
# (own, 792), 660 (what the backward's slots were before two pixels a thread) or 1056 (runs 2-3).
# test_kernels [gpu] on GPU 3 while GPUs 0-2 profile bonsai (batch 1, 5,000 images; batch 4, 10,000)
# and cup (batch 1, 5,000) under the three; then 30k runs, own against 1056 side by side.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
{ s=$(date +%s); CUDA_VISIBLE_DEVICES=3 timeout 200 ./test_kernels "[gpu]" > $L/test_kernels-gpu.txt 2>&1
  echo "test_kernels [gpu] rc=$? $(tail -2 $L/test_kernels-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" > $L/tests.txt; } &
T=$!
# run GPU SLOTS(own|N) SCENE SEED FLAGS...
run() { local g=$1 sl=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  echo "gpu $g start $(( $(date +%s) - t0 )) s: slots $sl $scene $seed $*" >> $L/order.txt
  if [ $sl = own ]; then unset SPLAT_FWD_SLOTS; else export SPLAT_FWD_SLOTS=$sl; fi
  CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/$scene --seed $seed "$@" --out $R/$sl-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$sl-$scene-$tag-s$seed.log
  rm -rf $R/$sl-$scene-$seed-$g; }
P1="--images 5000 --eval-every 0 --log-every 5000 --profile --batch-size 1"
P4="--images 10000 --eval-every 0 --log-every 10000 --profile --batch-size 4"
run 0 own bonsai 0 $P1 & run 1 660 bonsai 0 $P1 & run 2 1056 bonsai 0 $P1 & wait
run 0 1056 bonsai 0 $P4 & run 1 own bonsai 0 $P4 & run 2 660 bonsai 0 $P4 & wait
run 0 660 cup 0 $P1 & run 1 1056 cup 0 $P1 & run 2 own cup 0 $P1 & wait
wait $T; el "profiles, test"
{ run 0 own bonsai 0 --batch-size 1; run 0 1056 bonsai 1 --batch-size 1; run 0 own cup 0 --batch-size 1; } &
{ run 1 1056 bonsai 0 --batch-size 1; run 1 own bonsai 1 --batch-size 1; run 1 1056 cup 0 --batch-size 1; } &
{ for s in 0 1; do run 2,3 own bonsai $s --batch-size 4 --gpus 2; run 2,3 1056 bonsai $s --batch-size 4 --gpus 2; done
  run 2,3 own cup 0 --batch-size 4 --gpus 2; run 2,3 1056 cup 0 --batch-size 4 --gpus 2; } &
wait; el "30k"
tar -C $L -cf $OUT/logs.tar .
