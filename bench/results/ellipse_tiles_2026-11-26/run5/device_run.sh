# Device run 5 (2026-11-26 session 11, nvidia-h100-x1): the final tree of the ellipse tiles (small
# Gaussians emitted by their own lane, large ones by the warp) and the 56-byte exchange (no screen box),
# before (eaf7bec, ./before/) and after side by side on one H100: every [gpu] test suite, bench_raster,
# --profile at batch 1 and 4, whole 30k runs before/after alternated (bonsai batch 1 seed 1, cup batch 1
# seed 0).
L=$OUT/l; mkdir -p $L; nvidia-smi -L
mkdir -p /work/main/build-gpu/app /work/main/build-gpu/tests && cp ./splatlab /work/main/build-gpu/app/ && cp ./dist_mpi_exchange /work/main/build-gpu/tests/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 250 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
ab() { local name=$1 scene=$2 seeds=$3 flags=$4
  for s in $seeds; do for w in before after; do bin=./splatlab; [ $w = before ] && bin=./before/splatlab
    echo "$scene | $s | $flags" | bash bench/gpu_ratio_runs.sh $bin gpu-data $L/$name-s$s-$w 30000 > /dev/null 2>&1
  done; done; }
tst test_kernels "[gpu]" k; tst test_core "[gpu]" c; tst test_ranks "[gpu]" r; tst test_app "[gpu]" a; tst test_ui "[gpu]" u
el "tests"
./before/bench_raster > $L/raster_before.txt 2>&1; ./bench_raster > $L/raster_after.txt 2>&1; el "bench_raster"
bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof 5000 "--batch-size 1" "--batch-size 4" > $L/prof.txt 2>&1
el "profile"
ab b1 bonsai 1 "--batch-size 1"; el "bonsai b1"
ab c1 cup 0 "--batch-size 1"; el "cup b1"
cat $L/tests.txt
for f in $L/raster_*.txt; do echo "== $f"; grep -E "fwd\+bwd|project|blend|sort|emit" $f | head -24; done
cat $L/prof.txt
for d in $L/*-before $L/*-after; do echo "== $d"; tail -n +3 $d/summary.md; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
