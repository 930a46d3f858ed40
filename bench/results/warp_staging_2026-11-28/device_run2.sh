# Device run 2: the projection backward's SH rows staged per warp (w: each warp stages, computes and
# stores its 32 rows meeting only its own lanes) against main (n, f9603a1). test_kernels [gpu] of w;
# bench_raster --quick of both rotated over the two GPUs; --profile over bonsai's first 5,000 images
# at batch 1 and 4 (n, w alternated on GPU 1) while GPU 0 takes ncu sections of main's blend forward,
# blend backward, projection backward and emission in bench_raster's one-camera 100k and 1M cases.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
CUDA_VISIBLE_DEVICES=0 timeout 200 ./test_kernels_w "[gpu]" > $L/test_kernels_w-gpu.txt 2>&1; echo "test_kernels_w rc=$? $(tail -2 $L/test_kernels_w-gpu.txt | tr '\n' ' ')" >> $L/tests.txt; el tests
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br n 0 r1 & br w 1 r1 & wait; br w 0 r2 & br n 1 r2 & wait; el bench_raster
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
g0() { for n in 100000 1000000; do CUDA_VISIBLE_DEVICES=0 timeout 250 ncu --clock-control none $S -k regex:"blend_forward|blend_backward|project_backward|emit_entries" --launch-skip 8 -c 4 ./bench_raster_n --profile $n > $L/ncu_synthetic_$n.txt 2>&1; done; el ncu; }
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g-$(date +%s).log; rm -rf $R/$b$g; }
g1() { for t in "b1 --batch-size 1" "b4 --batch-size 4"; do set -- $t; prof n 1 "$@"; prof w 1 "$@"; prof w 1 "$@"; prof n 1 "$@"; done; el profiles; }
g0 & g1 & wait
