# Device run 3 (2026-11-26 session 13, nvidia-h100-x2), the binary of run 2: sparse Adam (--adam sparse) against
# dense (the default) at batch 1, 30k images, bonsai seeds 0-3 and cup seeds 0-3, the two side by side on the two
# GPUs where both run a seed (GPUs swapped per seed); bonsai dense seeds 0 and 1 are run 2's.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
pair() {  # scene, seed A on GPU 0 with flags A, seed B on GPU 1 with flags B
  echo "$1 | $2 | --batch-size 1 $3" | one 0 "$1-$4-s$2" & echo "$1 | $5 | --batch-size 1 $6" | one 1 "$1-$7-s$5" & wait
  el "$1: $(tail -1 $L/$1-$4-s$2/summary.md) / $(tail -1 $L/$1-$7-s$5/summary.md)"
}
pair bonsai 2 "" dense 2 "--adam sparse" sparse
pair bonsai 3 "--adam sparse" sparse 3 "" dense
pair bonsai 0 "--adam sparse" sparse 1 "--adam sparse" sparse
pair cup 0 "" dense 0 "--adam sparse" sparse
pair cup 1 "--adam sparse" sparse 1 "" dense
pair cup 2 "" dense 2 "--adam sparse" sparse
pair cup 3 "--adam sparse" sparse 3 "" dense
cat $L/*/summary.md | grep -v "^| scene\|^|---"
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
