# Device run 2 (2026-11-26 session 12, nvidia-h100-x2). GPU 0: test_kernels [gpu] with the warp-wide emit of
# large Gaussians (after: own lane up to 8 tiles; alt: up to 4), bench_raster of before (7bdc860), after
# and alt, --profile A/B on bonsai's first 5,000 images at batch 1 and 4; then cup's absgrad study.
# GPU 1: the absgrad study on bonsai: default against --absgrad, batch 4, seeds 0-2, 30k images.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
study() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
( export CUDA_VISIBLE_DEVICES=0
  tst test_kernels "[gpu]" k; el "kernels"
  ./before/bench_raster > $L/raster_before.txt 2>&1; ./bench_raster > $L/raster_after.txt 2>&1; ./alt/bench_raster > $L/raster_alt.txt 2>&1
  el "bench_raster"
  bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof 5000 "--batch-size 1" "--batch-size 4" > $L/prof.txt 2>&1
  bash bench/profile_ab.sh ./splatlab ./alt/splatlab gpu-data/bonsai $L/prof_alt 5000 "--batch-size 1" "--batch-size 4" > $L/prof_alt.txt 2>&1
  el "profiles"
  printf 'cup | 0 1 2 | --batch-size 4\ncup | 0 1 2 | --batch-size 4 --absgrad\n' | study 0 cup; el "cup study" ) & p0=$!
printf 'bonsai | 0 1 2 | --batch-size 4\nbonsai | 0 1 2 | --batch-size 4 --absgrad\n' | study 1 bonsai; el "bonsai study"
wait $p0
cat $L/tests.txt
for f in $L/raster_*.txt; do echo "== $f"; grep -E "fwd\+bwd|emit|project  " $f | head -24; done
cat $L/prof.txt $L/prof_alt.txt | grep -E "==|emit|project|loop wall"
cat $L/bonsai/summary.md $L/cup/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
