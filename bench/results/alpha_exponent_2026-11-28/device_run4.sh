# Device run 4: cup at batch 1 read 26.88 dB with x against 28.42 with n in run 3 (seed 0): cup 30k at
# batch 1 for seeds 0, 1, 2 of both side by side (swapping GPUs), then --profile over bonsai's first
# 5,000 images at batch 1 and 4 (run 3's profiles did not run).
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; el "$b $g $scene $seed $*"; }
job x 0 cup 0 --batch-size 1 & job n 1 cup 0 --batch-size 1 & wait
job n 0 cup 1 --batch-size 1 & job x 1 cup 1 --batch-size 1 & wait
job x 0 cup 2 --batch-size 1 & job n 1 cup 2 --batch-size 1 & wait
prof() { local b=$1 g=$2 r=$3 tag=$4; shift 4
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g-r$r.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do
  prof n 0 1 $t & prof x 1 1 $t & wait; prof x 0 2 $t & prof n 1 2 $t & wait; done; el profiles
