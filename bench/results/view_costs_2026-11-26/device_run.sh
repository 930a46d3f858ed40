# Device run 3 (2026-11-26 session 12, nvidia-h100-x2): the batch's cameras ordered by their measured render
# cost (after) against the draw order (before = 7bdc860), two GPUs at batch 4, bonsai and cup, seeds 0 and 1,
# alternated; the [gpu] tests of ranks (view costs of CUDA ranks, per-camera sums), core and kernels.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
tst test_ranks "[gpu]" r; ( CUDA_VISIBLE_DEVICES=0 tst test_core "[gpu]" c ) & ( CUDA_VISIBLE_DEVICES=1 tst test_kernels "[gpu]" k ) & wait; el "tests"
cat $L/tests.txt
for scene in bonsai cup; do for seed in 0 1; do for which in before after; do
  bin=./splatlab; [ $which = before ] && bin=./before/splatlab
  echo "$scene | $seed | --batch-size 4 --gpus 2" | bash bench/gpu_ratio_runs.sh $bin gpu-data $L/$which-$scene-s$seed 30000 > /dev/null 2>&1
  el "$scene s$seed $which: $(tail -1 $L/$which-$scene-s$seed/summary.md)"
done; done; done
for f in $L/*/*.metrics.jsonl; do python3 - "$f" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
v = sorted(x["render_imbalance"] for x in r if x.get("render_imbalance"))
n = len(v)
print(sys.argv[1].split("/")[-2], "render imbalance: records", n, "mean %.4f median %.4f p90 %.4f" % (sum(v)/n, v[n//2], v[int(n*0.9)]) if n else "none")
PY
done
tar -C $L -cf $OUT/logs.tar .
