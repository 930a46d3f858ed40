# Device run 2 (session 14): the α floor test (power against log(1/255/opacity), staged per Gaussian) before the exp, forward and backward blends.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
( CUDA_VISIBLE_DEVICES=1 timeout 300 ./test_kernels "[gpu]" > $L/test_kernels.log 2>&1; echo "test_kernels [gpu] rc=$? $(tail -2 $L/test_kernels.log | tr '\n' ' ')" > $L/tests.txt ) &
for r in 1 2; do for v in before .; do
  CUDA_VISIBLE_DEVICES=0 ./$v/bench_raster --quick > $L/raster-$(basename $v)-$r.log 2>&1; done; done; el "bench_raster"
prof() { CUDA_VISIBLE_DEVICES=$1 bash bench/profile_ab.sh $2 $3 gpu-data/bonsai $L/prof$4 $5 "$6" > $L/prof$4.txt 2>&1; }
prof 0 ./before/splatlab ./splatlab b1 5000 "--batch-size 1"; el b1
wait; cat $L/tests.txt
prof 0 ./before/splatlab ./splatlab b4 5000 "--batch-size 4" & prof 1 ./before/splatlab ./splatlab b4b 5000 "--batch-size 4" & wait; el b4
prof 0,1 ./before/splatlab ./splatlab g2b4 10000 "--batch-size 4 --gpus 2"; el g2
for f in $L/raster-*.log; do echo "== $f"; grep -E "fwd|blend" $f; done
cat $L/prof*.txt | grep -E "==|blend|loop|render|sharded: ras"
grep -B3 -A25 FAILED $L/test_kernels.log | head -60
tar -C $L -cf $OUT/logs.tar .
