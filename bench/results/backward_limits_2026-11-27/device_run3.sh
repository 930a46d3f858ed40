# Device run 3 (session 18): what bounds the backward blend (main's kernels, 47cef1d = 5614264's).
# GPU 0: ncu (detailed set) of the backward blend in bench_raster's one-camera case, 100k and 1M
# Gaussians (third call of three). GPU 1: ncu of bonsai's backward blend at batch 1 after 5,000
# images (launch 5,001, two launches). GPUs 2, 3: the GPU tests of test_ui and test_app, then --profile
# of MCMC (cap 1M) at batch 4 on one GPU and on two over the first 10,000 images.
set -f
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L > $L/gpus.txt
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*" >> $L/order.txt; }
N="ncu --clock-control none --set detailed -k regex:blend_backward"
g0() { for n in 100000 1000000; do CUDA_VISIBLE_DEVICES=0 timeout 200 $N --launch-skip 2 -c 1 ./bench_raster --profile $n > $L/ncu_synthetic_$n.txt 2>&1; done; el "ncu synthetic"; }
g1() { CUDA_VISIBLE_DEVICES=1 timeout 400 $N --launch-skip 5000 -c 2 ./splatlab train gpu-data/bonsai --images 5100 --batch-size 1 \
         --eval-every 0 --out $R/ncu > $L/ncu_bonsai_b1.txt 2>&1; rm -rf $R/ncu; el "ncu bonsai"; }
g23() { { for t in "test_ui [gpu]" "test_app [gpu]"; do set -- $t; s=$(date +%s)
      CUDA_VISIBLE_DEVICES=2,3 timeout 200 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
  el "tests"
  for g in "2" "2,3"; do tag=g$(echo $g | tr -cd ',' | wc -c)
    CUDA_VISIBLE_DEVICES=$g ./splatlab train gpu-data/bonsai --images 10000 --eval-every 0 --log-every 10000 --profile \
      --batch-size 4 --strategy mcmc --cap-max 1000000 $( [ $g = 2 ] || echo --gpus 2 ) --out $R/p-$tag > $L/prof-mcmc-$tag.log 2>&1
    rm -rf $R/p-$tag; done; el "mcmc profiles"; }
g0 & g1 & g23 & wait
tar -C $L -cf $OUT/logs.tar .
