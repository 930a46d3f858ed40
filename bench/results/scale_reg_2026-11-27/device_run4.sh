# Device run 4 (session 18): the GPU tests of the CUDA error check and the headless GL context's
# choice of GPU (test_ui with CUDA_VISIBLE_DEVICES=2,3, where EGL's first GPU is hidden from CUDA, and
# with all four; test_app with the binary where its tests look for it), then the default strategy with
# the world-scale regulariser (0.01, MCMC's weight, and 0.001) against the default: cup at batch 4,
# seeds 0-4, and bonsai at batch 4, seeds 0-2, each run alone on one GPU of four, evaluated per view.
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab build/app/splatlab
{ for t in "test_ui [gpu] 2,3" "test_ui [gpu] 0,1,2,3" "test_app [gpu] 0,1,2,3" "test_kernels [gpu] 0"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./$1 "$2" > $L/$1-$3.txt 2>&1
    echo "$1 $2 (CUDA_VISIBLE_DEVICES=$3) rc=$? $(tail -2 $L/$1-$3.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
printf '%s\n' \
  "bonsai | 0 1 2 | --batch-size 4 --scale-reg 0.01" \
  "bonsai | 0 1 2 | --batch-size 4 --scale-reg 0.001" \
  "cup | 0 1 2 3 4 | --batch-size 4" \
  "cup | 0 1 2 3 4 | --batch-size 4 --scale-reg 0.01" \
  "cup | 0 1 2 3 4 | --batch-size 4 --scale-reg 0.001" \
  | bash bench/gpu_queue_runs.sh ./splatlab gpu-data $L/q 30000 420 eval > /dev/null 2>&1
rm -f $L/q/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
