# Device run 5: cup 30k at batch 1, main before this session's rows-reached change (o, 9cf4af0) and the
# final tree (n, affc13b) side by side on GPUs 0 and 1, seed 0, then seed 1 swapped.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R
job() { local b=$1 g=$2 seed=$3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/cup --seed $seed --batch-size 1 --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-cup-b1-s$seed-gpu$g.log; rm -rf $R/$b$g; }
job o 0 0 & job n 1 0 & wait
job n 0 1 & job o 1 1 & wait
tar -C $L -cf $OUT/logs.tar .
