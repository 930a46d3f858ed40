# Device run 4 (2026-11-26 session 10, nvidia-h100-x4): GPU tests of the final tree (MCMC relocation and
# the rebalance's Morton sort on the device, the refinement plan, row ops); MCMC before (1359644) and
# after (this tree) under --profile and whole 30k runs on 1 and 2 GPUs; the rebalance's cost at 2 GPUs.
L=$OUT/l; mkdir -p $L before; nvidia-smi -L | wc -l
tar -xJf gpu-pack/before.tar.xz -C before ./splatlab
mkdir -p /work/main/build-gpu/app && cp ./splatlab /work/main/build-gpu/app/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
runs() { local bin=$1 out=$2; bash bench/gpu_ratio_runs.sh $bin gpu-data $out 30000 > /dev/null 2>&1; }
( export CUDA_VISIBLE_DEVICES=0
  for t in "[mcmc_relocate]" "[morton]" "[refine_plan]" "[row_ops]" "[adam]"; do tst test_kernels "$t" "k${#t}$RANDOM"; done
  tst test_core "[gpu]" g
  bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof_mcmc 10000 "--batch-size 4 --strategy mcmc" > $L/prof_mcmc.txt 2>&1
) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  printf 'bonsai | 0 | --batch-size 4 --strategy mcmc\n' | runs ./before/splatlab $L/mcmc_before
  printf 'bonsai | 0 | --batch-size 4 --strategy mcmc\n' | runs ./splatlab $L/mcmc_after ) & b=$!
( export CUDA_VISIBLE_DEVICES=2,3
  tst test_ranks "[gpu]" r
  tst test_app "[gpu]" a
  bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof2 10000 "--batch-size 4 --gpus 2" > $L/prof2.txt 2>&1
  printf 'bonsai | 0 | --batch-size 4 --gpus 2 --strategy mcmc\n' | runs ./before/splatlab $L/mcmc2_before
  printf 'bonsai | 0 | --batch-size 4 --gpus 2 --strategy mcmc\n' | runs ./splatlab $L/mcmc2_after ) & c=$!
wait $a; el "GPU 0"; cat $L/tests.txt; grep -E "==|refinement|rebalance|loop wall|before:|after:" $L/prof_mcmc.txt
wait $c; el "GPUs 2-3"; tail -3 $L/tests.txt; grep -E "==|refinement|rebalance|before:|after:" $L/prof2.txt
wait $b; el "GPU 1"
for f in mcmc_before mcmc_after mcmc2_before mcmc2_after; do echo "== $f"; tail -n +3 $L/$f/summary.md; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
