# Device run 4 (2026-11-26 session 11, nvidia-h100-x1): the tiles of the uncapped alpha >= 1/255 ellipse
# (exactly the tiles holding a pixel where a Gaussian can reach 1/255, so the render no longer depends
# on a 3-sigma box), before (eaf7bec, ./before/) and after side by side on one H100: [gpu] tests of
# kernels and core, bench_raster, --profile at batch 4, and the quality pairs that showed runs 2-3's
# capped ellipse 0.18 dB low on bonsai: batch 1 seed 0, batch 4 seeds 0 and 1, before and after alternated.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
ab() { local name=$1 scene=$2 seeds=$3 flags=$4
  for s in $seeds; do for w in before after; do bin=./splatlab; [ $w = before ] && bin=./before/splatlab
    echo "$scene | $s | $flags" | bash bench/gpu_ratio_runs.sh $bin gpu-data $L/$name-$w 30000 > /dev/null 2>&1
  done; done; }
tst test_kernels "[gpu]" k; tst test_core "[gpu]" c; el "tests"
./before/bench_raster > $L/raster_before.txt 2>&1; ./bench_raster > $L/raster_after.txt 2>&1; el "bench_raster"
bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof 5000 "--batch-size 4" > $L/prof.txt 2>&1
el "profile"
ab b4 bonsai "0 1" "--batch-size 4"; el "bonsai b4"
ab b1 bonsai 0 "--batch-size 1"; el "bonsai b1"
cat $L/tests.txt
for f in $L/raster_*.txt; do echo "== $f"; grep -E "fwd\+bwd|project|blend|sort|emit" $f | head -24; done
cat $L/prof.txt
for d in $L/*-before $L/*-after; do echo "== $d"; tail -n +3 $d/summary.md; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
