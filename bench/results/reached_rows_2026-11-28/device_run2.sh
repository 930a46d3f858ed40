# Device run 2 (run 1 again after its fix: the rows-reached buffer had been made on the host, so every
# CUDA step failed in Adam with an illegal address; run1/ keeps those logs): the rows a step's one backward call reached (n: gradients stored and read by Adam only
# for them; w: the same without leaving unreached rows' SH rest out of the projection backward's loads)
# against main (o, 9cf4af0). Every [gpu] suite of n (test_ranks and test_app on both GPUs); --profile
# over bonsai's first 5,000 images at batch 1 (o, n, w) and 4 (o, n), two at a time on GPUs 0 and 1,
# each on both GPUs; 30k runs side by side (bonsai batch 1 seeds 0 and 1, bonsai batch 4; no cup: the
# carried files had no room for it);
# two-GPU bonsai at batch 4, o then n.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_n build/app/splatlab
tests() { for t in "$@"; do set -- $t; s=$(date +%s)
    CUDA_VISIBLE_DEVICES=$3 timeout 200 ./${1}_n "$2" > $L/$1-${2//[\[\]]/}.txt 2>&1; echo "$1 $2 rc=$? $(tail -2 $L/$1-${2//[\[\]]/}.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)" >> $L/tests.txt; done; }
tests "test_kernels [gpu] 0" & tests "test_core [gpu] 1" "test_ui [gpu] 1" & wait
tests "test_ranks [gpu] 0,1" "test_ranks [nccl] 0,1" "test_app [gpu] 0,1"; el tests
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g.log; rm -rf $R/$b$g; }
for p in "o n" "w o" "n w"; do set -- $p; prof $1 0 b1 --batch-size 1 & prof $2 1 b1 --batch-size 1 & wait; done
for p in "o n" "n o"; do set -- $p; prof $1 0 b4 --batch-size 4 & prof $2 1 b4 --batch-size 4 & wait; done; el profiles
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; }
job o 0 bonsai 0 --batch-size 1 & job n 1 bonsai 0 --batch-size 1 & wait
job n 0 bonsai 1 --batch-size 1 & job o 1 bonsai 1 --batch-size 1 & wait
job n 0 bonsai 0 --batch-size 4 & job o 1 bonsai 0 --batch-size 4 & wait; el "one GPU"
job o 0,1 bonsai 0 --batch-size 4 --gpus 2; job n 0,1 bonsai 0 --batch-size 4 --gpus 2; el "two GPUs"
