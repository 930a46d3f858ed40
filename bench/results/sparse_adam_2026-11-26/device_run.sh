# Device run 1 (2026-11-26 session 10, nvidia-h100-x4): GPU tests of what landed untested (sparse Adam's
# kernel paths, the faint chunked-backward case, core/ranks/ui/app [gpu]); sparse Adam against dense,
# whole runs (GPUs 1-3, dense and sparse alternated on one GPU) and the adam row of --profile (GPU 0);
# ncu of the blend kernels at batch 1 and 4 (where forward's per-call cost goes).
L=$OUT/l; mkdir -p $L; nvidia-smi -L | wc -l
mkdir -p /work/main/build-gpu/app && cp ./splatlab /work/main/build-gpu/app/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
( export CUDA_VISIBLE_DEVICES=0
  tst test_kernels "[sparse]" x; tst test_kernels "CUDA backward in chunks of long tile lists matches the CPU reference" y
  tst test_core "[gpu]" z
  for f in "" "--sparse-adam"; do for b in 1 4; do
    ./splatlab train gpu-data/bonsai --images 5000 --eval-every 0 --log-every 5000 --profile --batch-size $b $f \
      --out $(mktemp -d)/r > $L/prof_b$b${f:+_sparse}.log 2>&1; done; done
  for b in 1 4; do skip=$(( b == 1 ? 4000 : 1000 ))
    ncu --clock-control none -k regex:blend_ --launch-skip $skip --launch-count 4 --metrics \
gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_elapsed.max,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread,launch__occupancy_limit_registers,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum \
      ./splatlab train gpu-data/bonsai --images $(( 2000 + 100 * b )) --batch-size $b --eval-every 0 --out $(mktemp -d)/r > $L/ncu_b$b.log 2>&1
  done ) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/s1 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 1
bonsai | 0 | --batch-size 1 --sparse-adam
bonsai | 1 | --batch-size 1
bonsai | 1 | --batch-size 1 --sparse-adam
RUNS
) & b=$!
( sleep 1; export CUDA_VISIBLE_DEVICES=2,3
  tst test_ranks "[gpu]" r; tst test_app "[gpu]" a
  ( export CUDA_VISIBLE_DEVICES=3; bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/s3 30000 > /dev/null 2>&1 < $L/s3.runs ) &
  export CUDA_VISIBLE_DEVICES=2
  bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/s2 30000 > /dev/null 2>&1 <<'RUNS'
bonsai | 0 | --batch-size 4
bonsai | 0 | --batch-size 4 --sparse-adam
bonsai | 1 | --batch-size 4
bonsai | 1 | --batch-size 4 --sparse-adam
RUNS
  wait ) & c=$!
cat > $L/s3.runs <<'RUNS'
cup | 0 | --batch-size 1
cup | 0 | --batch-size 1 --sparse-adam
cup | 1 | --batch-size 1
cup | 1 | --batch-size 1 --sparse-adam
RUNS
wait $a; el "GPU 0"
tst test_ui "[gpu]" u
cat $L/tests.txt
for f in $L/prof_*.log; do echo "== $f"; grep -iE "adam|loop wall|step phases|done:" $f | head -8; done
for b in 1 4; do echo "== ncu b$b"; grep -E "blend_|duration|cycles_active|elapsed.max|warps_active|grid_size|registers|throughput|inst_executed" $L/ncu_b$b.log | head -60; done
wait $b $c; el "runs"
cat $L/s1/summary.md $L/s2/summary.md $L/s3/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
