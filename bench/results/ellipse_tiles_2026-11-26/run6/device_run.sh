# Device run 6 (2026-11-26 session 11, nvidia-h100-x1): the emit's larger Gaussians in groups of 8 lanes,
# four at a time (after), against run 5's emit (the whole warp per larger Gaussian, ./mid/) and eaf7bec
# (./before/), one H100: [gpu] tests of kernels and core, bench_raster of all three, --profile of mid
# against after on bonsai's first 5,000 images at batch 1 and 4.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
tst test_kernels "[gpu]" k; tst test_core "[gpu]" c; el "tests"
./before/bench_raster > $L/raster_before.txt 2>&1; ./mid/bench_raster > $L/raster_mid.txt 2>&1; ./bench_raster > $L/raster_after.txt 2>&1
el "bench_raster"
bash bench/profile_ab.sh ./mid/splatlab ./splatlab gpu-data/bonsai $L/prof 5000 "--batch-size 1" "--batch-size 4" > $L/prof.txt 2>&1
el "profile"
cat $L/tests.txt
for f in $L/raster_*.txt; do echo "== $f"; grep -E "fwd\+bwd|project|blend|sort|emit" $f | head -24; done
cat $L/prof.txt
tar -C $L -cf $OUT/logs.tar .
