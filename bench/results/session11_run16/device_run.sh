# Device run 1 (2026-11-26 session 11, nvidia-h100-x4): the [gpu] tests of eaf7bec (device refinement with
# the shared counter-based draws, MCMC relocation, Morton sort, ranks, app, ui); bench_raster against the
# one-GPU rasterizer targets; a seed study of Adam dense against auto (sparse at batch 1) at batch 1,
# bonsai seeds 0-3 and cup seeds 0-4, each pair on one GPU (GPUs 1-3).
L=$OUT/l; mkdir -p $L; nvidia-smi -L
mkdir -p /work/main/build-gpu/app /work/main/build-gpu/tests && cp ./splatlab /work/main/build-gpu/app/ && cp ./dist_mpi_exchange /work/main/build-gpu/tests/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
seeds() { local gpu=$1 name=$2; shift 2; ( export CUDA_VISIBLE_DEVICES=$gpu
  bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$name 30000 > /dev/null 2>&1 ) ; }
( export CUDA_VISIBLE_DEVICES=0
  tst test_kernels "[gpu]" k; el "kernels"
  tst test_core "[gpu]" c; el "core"
  CUDA_VISIBLE_DEVICES=0,1 tst test_ranks "[gpu]" r; el "ranks"
  CUDA_VISIBLE_DEVICES=0,1 tst test_app "[gpu]" a; el "app"
  ./bench_raster > $L/bench_raster.txt 2>&1; el "bench_raster" ) & pa=$!
seeds 1 g1 <<'RUNS' &
bonsai | 0 1 | --batch-size 1 --adam dense
bonsai | 0 1 | --batch-size 1 --adam auto
cup | 0 | --batch-size 1 --adam dense
cup | 0 | --batch-size 1 --adam auto
RUNS
p1=$!
seeds 2 g2 <<'RUNS' &
bonsai | 2 3 | --batch-size 1 --adam dense
bonsai | 2 3 | --batch-size 1 --adam auto
cup | 1 | --batch-size 1 --adam dense
cup | 1 | --batch-size 1 --adam auto
RUNS
p2=$!
seeds 3 g3 <<'RUNS' &
cup | 2 3 4 | --batch-size 1 --adam dense
cup | 2 3 4 | --batch-size 1 --adam auto
RUNS
p3=$!
wait $pa; el "GPU 0 done"
wait $p1 $p2 $p3; el "runs done"
tst test_ui "[gpu]" u; el "ui"
cat $L/tests.txt
grep -E "^\|" $L/bench_raster.txt | head -30
cat $L/g1/summary.md $L/g2/summary.md $L/g3/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
