# Device run 2 (session 9, nvidia-h100-x4): forward blend in chunks (look-back join) against 5421b91:
# GPU tests; --profile A/B at batch 1 and 4; whole runs bonsai/cup batch 1; 2 and 4 GPUs at batch 4;
# exposure map learning rates (an experiment binary reading SPLAT_EXP_CMLR).
L=$OUT/l; mkdir -p $L; nvidia-smi -L | wc -l
mkdir -p /work/main/build-gpu/app && cp ./splatlab /work/main/build-gpu/app/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
timeout 120 ./test_ui "[gpu]" > $L/test_ui.log 2>&1; el "test_ui [gpu] (all GPUs visible) rc=$? $(tail -2 $L/test_ui.log | tr '\n' ' ')"
( export CUDA_VISIBLE_DEVICES=0
  for i in 1 2; do bash bench/profile_ab.sh ./before ./splatlab gpu-data/bonsai $L/ab$i 5000 "--batch-size 1" "--batch-size 4" > $L/ab$i.txt 2>&1; done
  SEEDS=0 FLAGS="--batch-size 1" bash bench/before_after.sh ./before ./splatlab gpu-data $L/b1 30000 bonsai > $L/b1.txt 2>&1 ) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  for t in "test_kernels [gpu]" "test_core [gpu]"; do
    set -- $t; timeout 200 ./$1 "$2" > $L/$1.log 2>&1; echo "$t rc=$? $(tail -2 $L/$1.log | tr '\n' ' ')" >> $L/tests.txt
  done
  SEEDS=0 FLAGS="--batch-size 1" bash bench/before_after.sh ./before ./splatlab gpu-data $L/c1 30000 cup > $L/c1.txt 2>&1 ) & b=$!
( export CUDA_VISIBLE_DEVICES=2
  for lr in 1e-3 2e-4 5e-5; do SPLAT_EXP_CMLR=$lr bash bench/gpu_ratio_runs.sh ./splatlab_exp gpu-data $L/exp_cup_$lr 30000 > /dev/null 2>&1 <<'RUNS'
cup | 0 | --batch-size 4 --exposure
RUNS
  done ) & c=$!
( export CUDA_VISIBLE_DEVICES=3
  for lr in 1e-3 2e-4 5e-5; do SPLAT_EXP_CMLR=$lr bash bench/gpu_ratio_runs.sh ./splatlab_exp gpu-data $L/exp_bonsai_$lr 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4 --exposure
RUNS
  done ) & d=$!
wait $b; el "tests, cup b1"; cat $L/tests.txt; grep -B5 -A25 "FAILED" $L/test_kernels.log | head -50; cat $L/c1.txt | tail -6
wait $a; el "profiles, bonsai b1"
for i in 1 2; do grep -E "==|blend (for|back)ward|loop wall|before:|after:" $L/ab$i.txt; done; tail -6 $L/b1.txt
wait $c $d; el "exposure"; for f in $L/exp_*/summary.md; do echo "$f: $(tail -1 $f)"; done
bash bench/profile_ab.sh ./before ./splatlab gpu-data/bonsai $L/g2 10000 "--batch-size 4 --gpus 2" "--batch-size 4 --gpus 4" > $L/g2.txt 2>&1
grep -E "==|blend (for|back)ward|loop wall|before:|after:" $L/g2.txt
for bin in ./before ./splatlab; do timeout 200 bash bench/gpu_ratio_runs.sh $bin gpu-data $L/multi_$(basename $bin) 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4 --gpus 4
bonsai | 0 | --batch-size 4 --gpus 2
RUNS
echo "$bin"; tail -2 $L/multi_$(basename $bin)/summary.md; done
el "multi"
tar -C $L -cf $OUT/logs.tar .
