# Device run 5 (session 19): the last tree's binaries (eb5cf8c; the commits after it change text only):
# every [gpu] suite (test_ranks on GPUs 0,1; test_ui and test_app with all four visible), then a
# 10,000-image two-GPU run at batch 4 and one of MCMC, as a check that the pushed exchange trains.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab build/app/
{ for t in "test_kernels [gpu] 0" "test_core [gpu] 0" "test_ranks [gpu] 0,1" "test_ui [gpu] 0,1,2,3" "test_app [gpu] 0,1,2,3"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
run() { local g=$1 tag=$2; shift 2; CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/bonsai --images 10000 --batch-size 4 --gpus 2 "$@" \
  --out $R/$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$tag.log; rm -rf $R/$tag; }
run 0,1 g2-b4 & run 2,3 g2-mcmc1m --strategy mcmc --cap-max 1000000 & wait
tar -C $L -cf $OUT/logs.tar .
