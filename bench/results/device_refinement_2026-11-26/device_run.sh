# Device run 2 (2026-11-26 session 10, nvidia-h100-x4): the refinement planned on the device against the
# host planner (before = 1359644, after = this tree; one device run): GPU tests of the new kernels,
# --profile A/B at 1, 2 GPUs, whole 30k runs before/after (bonsai b1, b4 on 1/2/4 GPUs; cup b1), and
# sparse Adam's missing runs (bonsai b1 seed 1, cup b4), with the after binary.
L=$OUT/l; mkdir -p $L before; nvidia-smi -L | wc -l
tar -xJf gpu-pack/before.tar.xz -C before ./splatlab
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
runs() { local bin=$1 out=$2; bash bench/gpu_ratio_runs.sh $bin gpu-data $out 30000 > /dev/null 2>&1; }
( export CUDA_VISIBLE_DEVICES=0
  tst test_kernels "[refine_plan]" k; tst test_core "[strategy_default]" s; tst test_core "[gpu]" g
  echo "bonsai | 0 | --batch-size 1" | runs ./before/splatlab $L/b1_before
  echo "bonsai | 0 | --batch-size 1" | runs ./splatlab $L/b1_after
  bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof1 10000 "--batch-size 1" "--batch-size 4" > $L/prof1.txt 2>&1
) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  echo "cup | 0 | --batch-size 1" | runs ./before/splatlab $L/cup_before
  echo "cup | 0 | --batch-size 1" | runs ./splatlab $L/cup_after
  printf 'cup | 0 1 | --batch-size 4\ncup | 0 1 | --batch-size 4 --sparse-adam\nbonsai | 1 | --batch-size 1\nbonsai | 1 | --batch-size 1 --sparse-adam\n' | runs ./splatlab $L/sparse
) & c=$!
( export CUDA_VISIBLE_DEVICES=2,3
  tst test_ranks "[gpu]" r
  bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof2 10000 "--batch-size 4 --gpus 2" > $L/prof2.txt 2>&1
  echo "bonsai | 0 | --batch-size 4 --gpus 2" | runs ./before/splatlab $L/g2_before
  echo "bonsai | 0 | --batch-size 4 --gpus 2" | runs ./splatlab $L/g2_after
  export CUDA_VISIBLE_DEVICES=2
  echo "bonsai | 0 | --batch-size 4" | runs ./before/splatlab $L/g1_before
  echo "bonsai | 0 | --batch-size 4" | runs ./splatlab $L/g1_after
) & d=$!
wait $d; el "GPUs 2-3"; cat $L/tests.txt; cat $L/prof2.txt
wait $a; el "GPU 0"; cat $L/prof1.txt
wait $c; el "GPU 1"
echo "bonsai | 0 | --batch-size 4 --gpus 4" | runs ./before/splatlab $L/g4_before
echo "bonsai | 0 | --batch-size 4 --gpus 4" | runs ./splatlab $L/g4_after
el "four"
for f in b1_before b1_after cup_before cup_after g1_before g1_after g2_before g2_after g4_before g4_after sparse; do echo "== $f"; tail -n +3 $L/$f/summary.md; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
