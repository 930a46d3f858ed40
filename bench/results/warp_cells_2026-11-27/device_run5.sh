# Device run 5 (session 22): what a refinement event costs. Binaries of 191e167 with the model's
# buffers grown as now (G8: by an eighth, cudaMalloc/cudaFree), grown by half (G2), or taken from the
# stream-ordered pool (SA: cudaMallocAsync/cudaFreeAsync on the buffer's stream; an experiment).
# --profile of bonsai's first 10,000 images at batch 4 on one GPU (each variant on GPUs 0 and 1,
# rotated) and on two (GPUs 2,3; default and MCMC cap 1M); then SA's multi-rank suites on GPUs 2,3.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
job() { local g=$1 bin=$2 tag=$3; shift 3
  echo "gpu $g start $(( $(date +%s) - t0 )) s: $bin $tag $*" >> $L/order.txt
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$bin train gpu-data/bonsai --seed 0 "$@" --out $R/$bin-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$bin-$tag-gpu$g.log
  rm -rf $R/$bin-$g; }
P="--images 10000 --eval-every 0 --log-every 10000 --profile --batch-size 4"
M="--strategy mcmc --cap-max 1000000"
{ job 0 G8 b4 $P; job 0 SA b4 $P; job 0 G2 b4 $P; } &
{ job 1 SA b4 $P; job 1 G2 b4 $P; job 1 G8 b4 $P; } &
{ job 2,3 G8 2gpu $P --gpus 2; job 2,3 SA 2gpu $P --gpus 2; job 2,3 G2 2gpu $P --gpus 2; job 2,3 G8 2gpu-mcmc $P $M --gpus 2; job 2,3 SA 2gpu-mcmc $P $M --gpus 2; } &
wait; el "profiles"
mkdir -p build/app && cp splatlab_SA build/app/splatlab
{ for t in "test_ranks [gpu] 2,3" "test_app [gpu] 2,3" "test_core [gpu] 0"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_SA "$2" > $L/$1-$2.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-$2.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
el "tests"
tar -C $L -cf $OUT/logs.tar .
