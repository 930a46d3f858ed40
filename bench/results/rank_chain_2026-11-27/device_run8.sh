# Device run 8: what limits the loss kernels on bonsai at batch 1 and 4 (ncu sections of
# ssim_forward_kernel and loss_backward_kernel after 1,000 launches of each).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
for b in 1 4; do
  CUDA_VISIBLE_DEVICES=0 ncu --clock-control none -k regex:"ssim_forward|loss_backward" --launch-skip 1000 --launch-count 2 \
    --section SpeedOfLight --section Occupancy --section MemoryWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
    ./splatlab_n train gpu-data/bonsai --seed 0 --images $((600 * b)) --batch-size $b --out $R/b$b > $L/ncu-loss-b$b.txt 2>&1
done
tar -C $L -cf $OUT/logs.tar .
