# Device run 5 (session 9, nvidia-h100-x4): the model's column edits through one pooled scratch instead
# of an allocation per column; before = the run-4 binary (same marks). Refinement parts at 4, 2, 1 GPUs
# (bonsai batch 4, 10,000 images, --profile); GPU tests; whole runs at 1, 2, 4 GPUs (30k, batch 4).
L=$OUT/l; mkdir -p $L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
p() { local bin=$1 tag=$2; shift 2; $bin train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 10000 --profile --batch-size 4 "$@" --out /tmp/p$RANDOM > $L/$tag.log 2>&1; }
show() { echo "== $1"; grep -E "refinement: rows applied|strategy: refinement|rebalance|sum of step|loop wall" $L/$1.log; }
p ./before g4_before --gpus 4; p ./splatlab g4_after --gpus 4; show g4_before; show g4_after; el "4 GPUs"
( export CUDA_VISIBLE_DEVICES=0,1; p ./before g2_before --gpus 2; p ./splatlab g2_after --gpus 2
  CUDA_VISIBLE_DEVICES=0 p ./before g1_before; CUDA_VISIBLE_DEVICES=0 p ./splatlab g1_after
  CUDA_VISIBLE_DEVICES=1 timeout 100 ./test_core "[gpu]" > $L/test_core.log 2>&1; echo "test_core [gpu] rc=$? $(tail -2 $L/test_core.log | tr '\n' ' ')" >> $L/tests.txt ) & a=$!
( export CUDA_VISIBLE_DEVICES=2,3; timeout 150 ./test_ranks "[gpu]" > $L/test_ranks.log 2>&1; echo "test_ranks [gpu] rc=$? $(tail -2 $L/test_ranks.log | tr '\n' ' ')" >> $L/tests.txt ) & b=$!
wait $a $b; el "2 GPUs, 1 GPU, tests"; for t in g2_before g2_after g1_before g1_after; do show $t; done; cat $L/tests.txt
grep -B3 -A15 FAILED $L/test_ranks.log $L/test_core.log | head -30
timeout 150 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/whole 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4 --gpus 4
bonsai | 0 | --batch-size 4 --gpus 2
bonsai | 0 | --batch-size 4
RUNS
el "whole"; cat $L/whole/summary.md
tar -C $L -cf $OUT/logs.tar .
