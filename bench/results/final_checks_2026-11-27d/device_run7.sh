# Device run 7 (session 19), on nvidia-h100-x2, binaries of ba08997 (the last tree): the NCCL and
# multi-rank [gpu] tests, test_app's [gpu] cases (mpirun on the GPUs among them), two ranks sharing one
# GPU, and one GPU against two at batch 4 (bonsai, 30k images, seed 0; the two GPUs' run alone).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp splatlab build/app/
{ for t in "test_ranks [nccl]" "test_ranks [gpu]" "test_app [gpu]"; do set -- $t; s=$(date +%s)
    timeout 150 ./$1 "$2" > $L/$1-$(echo $2 | tr -d '[]').txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-$(echo $2 | tr -d '[]').txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
run() { local g=$1 tag=$2; shift 2; CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/bonsai --seed 0 --batch-size 4 "$@" \
  --out $R/$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$tag.log; rm -rf $R/$tag; }
run 0 ranks2-gpu1 --ranks 2 --images 10000
run 0 g1-b4
run 0,1 g2-b4 --gpus 2
tar -C $L -cf $OUT/logs.tar .
