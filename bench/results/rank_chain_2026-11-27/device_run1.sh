# Device run 1: where a two-GPU step waits. --profile over bonsai's first 10,000 images at batch 4, one
# GPU and two, default strategy and MCMC (cap 1M); then, where nsys exists, a device timeline of a
# two-GPU run (3,000 images) exported as per-kernel CSV rows (start, duration, device, stream).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
{ which nsys ncu; ls /usr/local/cuda/bin; ls /opt/nvidia 2>&1; nsys --version 2>&1; } > $L/tools.txt 2>&1
prof() { local tag=$1 g=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g ./splatlab_n train gpu-data/bonsai --seed 0 --images 10000 --batch-size 4 --profile "$@" --out $R/$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$tag.log; rm -rf $R/$tag; }
M="--strategy mcmc --cap-max 1000000"
prof def-g1 0 & prof mcmc-g1 1 $M & wait; el "one GPU"
prof def-g2 0,1 --gpus 2; prof mcmc-g2 0,1 --gpus 2 $M; el "two GPUs"
prof mcmc-g1b 0 $M; el "mcmc one GPU alone"
if command -v nsys > /dev/null; then
  CUDA_VISIBLE_DEVICES=0,1 nsys profile -t cuda -o $R/tl --force-overwrite true ./splatlab_n train gpu-data/bonsai --seed 0 --images 3000 --batch-size 4 --gpus 2 --out $R/tl-out > $L/nsys.txt 2>&1
  nsys stats -r cuda_gpu_trace -f csv -o $R/tl $R/tl.nsys-rep >> $L/nsys.txt 2>&1
  ls -la $R >> $L/nsys.txt; xz -T8 -c $R/tl_cuda_gpu_trace.csv > $L/tl_gpu_trace.csv.xz
fi
el "timeline"
