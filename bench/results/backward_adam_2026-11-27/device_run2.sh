# Device run 2 (session 20): the backward taking the Adam step. The new binaries' [gpu] suites, then
# before (old/splatlab, main without it) and after (new/splatlab) side by side, each run alone on one
# GPU, the binaries swapped between the GPUs for the second seed; two GPUs one binary after the other.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
mkdir -p build/app && cp new/splatlab build/app/
{ for t in "test_kernels [gpu]" "test_core [gpu]" "test_ranks [gpu]" "test_app [gpu]"; do set -- $t; s=$(date +%s)
    timeout 150 new/$1 "$2" > $L/$1-gpu.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-gpu.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
run() { local bin=$1 gpus=$2 tag=$3; shift 3; CUDA_VISIBLE_DEVICES=$gpus $bin/splatlab train gpu-data/"$@" --out $R/$bin-$tag 2>&1 \
  | tr '\r' '\n' | grep -v "^train  \[" > $L/$bin-$tag.log; rm -rf $R/$bin-$tag; }
run old 0 prof-b4 bonsai --batch-size 4 --images 10000 --profile & run new 1 prof-b4 bonsai --batch-size 4 --images 10000 --profile & wait
run old 0 bonsai-b1-s0 bonsai --seed 0 & run new 1 bonsai-b1-s0 bonsai --seed 0 & wait
run new 0 bonsai-b1-s1 bonsai --seed 1 & run old 1 bonsai-b1-s1 bonsai --seed 1 & wait
run old 0 bonsai-b4-s0 bonsai --seed 0 --batch-size 4 & run new 1 bonsai-b4-s0 bonsai --seed 0 --batch-size 4 & wait
run new 0 bonsai-b4-s1 bonsai --seed 1 --batch-size 4 & run old 1 bonsai-b4-s1 bonsai --seed 1 --batch-size 4 & wait
run old 0 cup-b1-s0 cup --seed 0 & run new 1 cup-b1-s0 cup --seed 0 & wait
run old 0,1 g2-b4-s0 bonsai --seed 0 --batch-size 4 --gpus 2
run new 0,1 g2-b4-s0 bonsai --seed 0 --batch-size 4 --gpus 2
grep -H "^done:" $L/*.log > $L/done.txt
tar -C $L -cf $OUT/logs.tar .
