# Device run 6 (session 14): the anti-aliased projection against the default alone on a GPU each (speed and
# quality): bonsai batch 4 and batch 1, seeds 0 and 1 (GPUs swapped per seed), cup batch 4 seed 0.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
pair() { # GPU0 runs $1, GPU1 runs $2: "scene | seed | flags"
  ( echo "$1" | CUDA_VISIBLE_DEVICES=0 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$3-g0 30000 > /dev/null 2>&1 ) &
  ( echo "$2" | CUDA_VISIBLE_DEVICES=1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$3-g1 30000 > /dev/null 2>&1 ) & wait
  el "$3: $(tail -1 $L/$3-g0/summary.md) / $(tail -1 $L/$3-g1/summary.md)"; }
pair "bonsai | 0 | --batch-size 4" "bonsai | 0 | --batch-size 4 --antialiased" b4s0
pair "bonsai | 1 | --batch-size 4 --antialiased" "bonsai | 1 | --batch-size 4" b4s1
pair "bonsai | 0 | --batch-size 1" "bonsai | 0 | --batch-size 1 --antialiased" b1s0
pair "bonsai | 1 | --batch-size 1 --antialiased" "bonsai | 1 | --batch-size 1" b1s1
pair "cup | 0 | --batch-size 4" "cup | 0 | --batch-size 4 --antialiased" cupb4s0
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
