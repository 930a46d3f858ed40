# Device run 1 (2026-11-26 session 9, nvidia-h100-x4): GPU tests of what landed untested (5421b91 + the
# backward's register fix); the register fix A/B (GPU 0); --exposure whole runs (GPU 1); then 4 GPUs
# at batch 4/8/16 against 1 GPU at batch 4, and --photos own on 2 GPUs.
L=$OUT/l; mkdir -p $L; nvidia-smi -L | wc -l
mkdir -p /work/main/build-gpu/app && cp ./splatlab /work/main/build-gpu/app/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
( export CUDA_VISIBLE_DEVICES=0
  for i in 1 2; do bash bench/profile_ab.sh ./before ./splatlab gpu-data/bonsai $L/ab$i 5000 "--batch-size 1" "--batch-size 4" > $L/ab$i.txt 2>&1; done ) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  for t in "test_kernels [gpu]" "test_core [gpu]" "test_ui [gpu]"; do
    set -- $t; timeout 200 ./$1 "$2" > $L/$1.log 2>&1; echo "$t rc=$? $(tail -2 $L/$1.log | tr '\n' ' ')" >> $L/tests.txt
  done
  bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/exposure 30000 > /dev/null 2>&1 <<'RUNS'
cup | 0 1 | --batch-size 4
cup | 0 1 | --batch-size 4 --exposure
bonsai | 0 | --batch-size 4
bonsai | 0 | --batch-size 4 --exposure
RUNS
) & b=$!
( export CUDA_VISIBLE_DEVICES=2,3
  for t in "test_ranks [gpu]" "test_app [gpu]"; do
    set -- $t; timeout 250 ./$1 "$2" > $L/$1.log 2>&1; echo "$t rc=$? $(tail -2 $L/$1.log | tr '\n' ' ')" >> $L/tests.txt
  done ) & c=$!
wait $a $c; el "A/B and rank tests"
cat $L/tests.txt; grep -B2 -A10 "FAILED" $L/test_ranks.log $L/test_app.log | head -40
for i in 1 2; do grep -E "==|blend (for|back)ward|loop wall|before:|after:" $L/ab$i.txt; done
wait $b; el "exposure"; cat $L/tests.txt | tail -3; cat $L/exposure/summary.md
timeout 330 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/four 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4
bonsai | 0 | --batch-size 4 --gpus 4
bonsai | 0 | --batch-size 8 --gpus 4
bonsai | 0 | --batch-size 16 --gpus 4
bonsai | 0 | --batch-size 4 --gpus 2 --photos own
bonsai | 0 | --batch-size 4 --gpus 2
RUNS
el "four"; cat $L/four/summary.md
tar -C $L -cf $OUT/logs.tar .
