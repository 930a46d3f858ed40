# Device run 1: where a rasterizer call's fixed costs lie. ncu kernel durations (serialised, clocks
# free, caches kept) over 8 images around image 3,000 of bonsai at batch 1, 2 and 4 (one GPU; main's
# tree 00f9c4b with a throwaway cudaProfilerStart/Stop range by step, SPLATLAB_PROF_RANGE=a:b); then
# --profile over bonsai's first 5,000 images at batch 2 and 4 on one GPU and at batch 4 on two GPUs.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; rm -rf $R; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; tar -C $L -cf $OUT/logs.tar .; }
mkdir -p build/app && cp splatlab_p build/app/splatlab
nc() { local g=$1 b=$2 a=$3 e=$4
  CUDA_VISIBLE_DEVICES=$g SPLATLAB_PROF_RANGE=$a:$e timeout 280 ncu --profile-from-start off --clock-control none \
    --cache-control none --metrics gpu__time_duration.sum -o $R/ncu-b$b ./splatlab_p train gpu-data/bonsai --seed 0 \
    --images $(( (e + 2) * b )) --batch-size $b --out $R/n$b > $L/ncu-b$b.log 2>&1
  ncu --import $R/ncu-b$b.ncu-rep --csv --print-units base --page raw --metrics gpu__time_duration.sum > $L/ncu-b$b.csv 2>&1; }
prof() { local g=$1 tag=$2; shift 2
  CUDA_VISIBLE_DEVICES=$g ./splatlab_p train gpu-data/bonsai --seed 0 --images 5000 --profile "$@" --out $R/p$tag 2>&1 | tr '\r' '\n' | grep -v "^train  \[" > $L/prof-$tag.log; rm -rf $R/p$tag; }
nc 0 1 3000 3008 & nc 1 2 1500 1504 & wait; el ncu b1 b2
nc 0 4 750 752 & wait; el ncu b4
prof 0 b2 --batch-size 2 & prof 1 b4 --batch-size 4 & wait; el prof b2 b4
prof 0,1 g2b4 --batch-size 4 --gpus 2; el prof g2b4
