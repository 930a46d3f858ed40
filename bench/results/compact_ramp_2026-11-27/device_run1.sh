# Device run 1 (session 20): the default strategy's budget of 600,000 Gaussians reached gradually
# (--budget-full-at: each refinement grows an even share of the room left) against at once, bonsai
# 30k images, batch 4 (seeds 0-2) and batch 1 (seeds 0, 1), each run alone on one GPU; first the
# two-GPU test_app [gpu] cases (mpirun against --gpus 2, with the comparison's new tolerance).
set -f
L=$OUT/l; mkdir -p $L; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab build/app/
s=$(date +%s); timeout 120 ./test_app "[gpu]" > $L/test_app-gpu.txt 2>&1
echo "test_app [gpu] rc=$? $(tail -2 $L/test_app-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" > $L/tests.txt
B="--max-gaussians 600000"
bash bench/gpu_queue_runs.sh $PWD/splatlab $PWD/gpu-data $L/q 30000 470 <<RUNS
bonsai | 0 1 | $B --budget-full-at 7500 --batch-size 1
bonsai | 0 1 | $B --budget-full-at 14900 --batch-size 1
bonsai | 0 1 2 | $B --budget-full-at 7500 --batch-size 4
bonsai | 0 1 2 | $B --budget-full-at 14900 --batch-size 4
bonsai | 0 1 | $B --batch-size 4
bonsai | 0 1 | --batch-size 4
RUNS
tar -C $L -cf $OUT/logs.tar .
