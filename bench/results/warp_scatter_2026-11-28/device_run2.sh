# Device run 2: the backward's warp sums halved at lane distance 16 (reduce-scatter), then a butterfly
# down to kSumLanes lanes: b = 4 lanes (run 1's b), c = 2, e = 1; o = main (7f93ae5). m = b with the tile
# entries' room narrowed to the recent needs' spread (kernels/capacity_plan.h). bench_raster --quick of
# all five rotated over both GPUs; --profile over bonsai's first 5,000 images at batch 1 and 4 (o, b, c,
# e); 30k runs with --profile (for the overflow counts) of m and o side by side: bonsai and cup, batch 1
# and 4, seed 0.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
br() { CUDA_VISIBLE_DEVICES=$2 ./bench_raster_$1 --quick > $L/bench_raster_$1_gpu$2_$3.txt 2>&1; }
br o 0 r1 & br b 1 r1 & wait; br c 0 r2 & br e 1 r2 & wait; br m 0 r3 & br o 1 r3 & wait
br b 0 r4 & br c 1 r4 & wait; br e 0 r5 & br m 1 r5 & wait; el bench_raster
prof() { local b=$1 g=$2 tag=$3; shift 3
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/$b$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$b-$tag-gpu$g.log; rm -rf $R/$b$g; }
for t in "b1 --batch-size 1" "b4 --batch-size 4"; do set -- $t
  prof o 0 "$@" & prof b 1 "$@" & wait; prof c 0 "$@" & prof e 1 "$@" & wait
  prof b 0 "$@" & prof o 1 "$@" & wait; prof e 0 "$@" & prof c 1 "$@" & wait; done; el profiles
job() { local b=$1 g=$2 scene=$3 seed=$4; shift 4; local tag=$(echo "$*" | tr -d ' -')
  CUDA_VISIBLE_DEVICES=$g ./splatlab_$b train gpu-data/$scene --seed $seed --profile "$@" --out $R/$b-$scene-$seed-$g 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/train-$b-$scene-$tag-s$seed-gpu$g.log
  rm -rf $R/$b-$scene-$seed-$g; }
job m 0 bonsai 0 --batch-size 1 & job o 1 bonsai 0 --batch-size 1 & wait; el "bonsai b1"
job o 0 bonsai 0 --batch-size 4 & job m 1 bonsai 0 --batch-size 4 & wait; el "bonsai b4"
job m 0 cup 0 --batch-size 1 & job o 1 cup 0 --batch-size 1 & wait; el "cup b1"
job o 0 cup 0 --batch-size 4 & job m 1 cup 0 --batch-size 4 & wait; el "cup b4"
