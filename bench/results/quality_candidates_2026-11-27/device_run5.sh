# Device run 5 (session 14): quality candidates, 30k images at batch 4: cup seeds 0-4 with --opacity-reg 0.01,
# --scale-reg 0.01, --antialiased (default: run 3); bonsai seeds 0-2 default, --opacity-reg 0.01, --antialiased (no bonsai --scale-reg: device time).
# Two runs share each GPU at a time (images/s are not comparable between rows; PSNR is). Per-view eval of cup runs.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { local gpu=$1 scene=$2 tag=$3 seed=$4; shift 4
  CUDA_VISIBLE_DEVICES=$gpu ./splatlab train gpu-data/$scene --batch-size 4 --seed $seed "$@" --out $R/$scene-$tag-s$seed > $L/train-$scene-$tag-s$seed.log 2>&1
  [ $scene = cup ] && CUDA_VISIBLE_DEVICES=$gpu ./splatlab eval $R/$scene-$tag-s$seed > $L/eval-$scene-$tag-s$seed.txt 2>&1; rm -rf $R/$scene-$tag-s$seed; }
( for s in 0 1 2 3 4; do one 0 cup op $s --opacity-reg 0.01; done; for s in 0 1; do one 0 bonsai default $s; done ) &
( for s in 0 1 2 3 4; do one 0 cup sc $s --scale-reg 0.01; done; for s in 2; do one 0 bonsai default $s; done ) &
( for s in 0 1 2 3 4; do one 1 cup aa $s --antialiased; done; for s in 0; do one 1 bonsai op $s --opacity-reg 0.01; done ) &
( for s in 1 2; do one 1 bonsai op $s --opacity-reg 0.01; done; for s in 0 1 2; do one 1 bonsai aa $s --antialiased; done ) &
wait; el "runs"
for f in $L/train-*.log; do echo "$(basename $f .log): $(grep -E '^done' $f | sed 's/; wrote.*//')"; done
tar -C $L -cf $OUT/logs.tar .
