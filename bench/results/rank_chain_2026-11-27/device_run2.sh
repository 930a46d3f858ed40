# Device run 2: what limits the projection and its backward (ncu sections over bench_raster's
# one-camera dense calls of 1M and 100k Gaussians; the kernels named project*).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
for n in 1000000 100000; do
  CUDA_VISIBLE_DEVICES=0 ncu --clock-control none -k regex:project --section SpeedOfLight --section Occupancy \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section LaunchStats \
    --section ComputeWorkloadAnalysis ./bench_raster_n --profile $n > $L/ncu-project-$n.txt 2>&1
done
tar -C $L -cf $OUT/logs.tar .
