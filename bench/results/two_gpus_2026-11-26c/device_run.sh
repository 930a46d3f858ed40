# Device run 1 (2026-11-26 session 12, nvidia-h100-x2): the [gpu] tests of 7bdc860 (ellipse tiles, 56-byte
# exchange; NCCL and direct-copy ranks on 2 GPUs), then one GPU against two at batch 4 on bonsai (seeds 0, 1)
# and cup (seeds 0, 1), 30k images; the one-GPU runs of the two seeds side by side on the two GPUs.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
mkdir -p /work/main/build-gpu/app /work/main/build-gpu/tests && cp ./splatlab /work/main/build-gpu/app/ && cp ./dist_mpi_exchange /work/main/build-gpu/tests/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
( CUDA_VISIBLE_DEVICES=0 tst test_kernels "[gpu]" k ) & ( CUDA_VISIBLE_DEVICES=1 tst test_core "[gpu]" c ) & wait; el "kernels, core"
tst test_ranks "[gpu]" r; el "ranks"
tst test_app "[gpu]" a; el "app"
tst test_ui "[gpu]" u; el "ui"
cat $L/tests.txt
one() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
echo "bonsai | 0 | --batch-size 4" | one 0 g1s0 & echo "bonsai | 1 | --batch-size 4" | one 1 g1s1 & wait; el "bonsai 1 GPU"
printf 'bonsai | 0 1 | --batch-size 4 --gpus 2\ncup | 0 1 | --batch-size 4 --gpus 2\n' | one 0,1 g2; el "2 GPUs"
echo "cup | 0 | --batch-size 4" | one 0 c1s0 & echo "cup | 1 | --batch-size 4" | one 1 c1s1 & wait; el "cup 1 GPU"
cat $L/*/summary.md
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
