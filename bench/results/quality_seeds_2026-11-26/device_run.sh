# Device run 3 (2026-11-26 session 10, nvidia-h100-x4): more seeds for the two quality questions of this
# session: the refinement planned on the device (before = 1359644, after = abe71b4) and sparse Adam
# (the after binary, dense against --sparse-adam), bonsai at batch 1 and 4 on 1 and 2 GPUs, cup.
L=$OUT/l; mkdir -p $L before; nvidia-smi -L | wc -l
tar -xJf gpu-pack/before.tar.xz -C before ./splatlab
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
runs() { local bin=$1 out=$2; bash bench/gpu_ratio_runs.sh $bin gpu-data $out 30000 > /dev/null 2>&1; }
( export CUDA_VISIBLE_DEVICES=0
  printf 'bonsai | 1 2 | --batch-size 4\n' | runs ./before/splatlab $L/r0_before
  printf 'bonsai | 1 2 | --batch-size 4\n' | runs ./splatlab $L/r0_after ) & a=$!
( export CUDA_VISIBLE_DEVICES=1
  printf 'bonsai | 2 3 | --batch-size 4\nbonsai | 2 3 | --batch-size 4 --sparse-adam\n' | runs ./splatlab $L/s1 ) & b=$!
( export CUDA_VISIBLE_DEVICES=2
  printf 'cup | 1 2 | --batch-size 1\n' | runs ./before/splatlab $L/r2_before
  printf 'cup | 1 2 | --batch-size 1\n' | runs ./splatlab $L/r2_after ) & c=$!
( export CUDA_VISIBLE_DEVICES=3
  printf 'bonsai | 2 | --batch-size 1\nbonsai | 2 | --batch-size 1 --sparse-adam\ncup | 2 | --batch-size 4\ncup | 2 | --batch-size 4 --sparse-adam\n' | runs ./splatlab $L/s3 ) & d=$!
wait $a $b; el "GPUs 0-1"
( export CUDA_VISIBLE_DEVICES=0,1
  printf 'bonsai | 1 | --batch-size 4 --gpus 2\n' | runs ./before/splatlab $L/g2_before
  printf 'bonsai | 1 | --batch-size 4 --gpus 2\n' | runs ./splatlab $L/g2_after ) & e=$!
wait $c $d; el "GPUs 2-3"
( export CUDA_VISIBLE_DEVICES=2,3
  printf 'bonsai | 1 | --batch-size 4 --gpus 2 --sparse-adam\n' | runs ./splatlab $L/g2_sparse ) & f=$!
wait $e $f; el "two GPUs"
for f in r0_before r0_after r2_before r2_after g2_before g2_after s1 s3 g2_sparse; do echo "== $f"; tail -n +3 $L/$f/summary.md; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
