# Device run 5 (2026-11-26 session 12, nvidia-h100-x2), binary of 9abac2d (the tree with the absgrad option;
# its kernels are 7bdc860's): the remaining two-GPU targets, seed 0, 30k images: one GPU at batch 1 (GPU 0)
# beside one GPU MCMC (cap 1M) at batch 4 (GPU 1), then two GPUs at batch 8 and two GPUs MCMC at batch 4.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { CUDA_VISIBLE_DEVICES=$1 bash bench/gpu_ratio_runs.sh ./splatlab gpu-data $L/$2 30000 > /dev/null 2>&1; }
echo "bonsai | 0 | --batch-size 1" | one 0 g1b1 & echo "bonsai | 0 | --batch-size 4 --strategy mcmc" | one 1 g1mcmc & wait; el "one GPU"
printf 'bonsai | 0 | --batch-size 8 --gpus 2\nbonsai | 0 | --batch-size 4 --gpus 2 --strategy mcmc\n' | one 0,1 g2; el "two GPUs"
cat $L/*/summary.md
rm -f $L/*/*.metrics.jsonl
