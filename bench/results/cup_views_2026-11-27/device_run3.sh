# Device run 3 (session 14): what cup's bad runs are made of. Cup, 30k images at batch 4, seeds 0-4, two
# runs each, test PSNR every 2,500 images; then per-view PSNR on test and train views of every run.
L=$OUT/l; mkdir -p $L; R=/tmp/runs; mkdir -p $R; nvidia-smi -L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { CUDA_VISIBLE_DEVICES=$1 ./splatlab train gpu-data/cup --batch-size 4 --seed $2 --eval-every 2500 --log-every 500 --out $R/s$2r$3 > $L/train-s$2r$3.log 2>&1; }
( one 0 0 1; one 0 2 1; one 0 4 1 ) & ( one 0 1 2; one 0 3 2 ) & ( one 1 1 1; one 1 3 1 ) & ( one 1 0 2; one 1 2 2; one 1 4 2 ) &
wait; el "cup runs"
for d in $R/*; do n=$(basename $d); CUDA_VISIBLE_DEVICES=1 ./splatlab eval $d > $L/eval-$n.txt 2>&1; CUDA_VISIBLE_DEVICES=0 ./splatlab eval $d --train-views > $L/evaltrain-$n.txt 2>&1; cp $d/metrics.jsonl $L/metrics-$n.jsonl; done; el evals
for f in $L/train-*.log; do echo "$(basename $f): $(grep -E '^done' $f | head -1)"; done
for f in $L/eval-*.txt; do echo "== $f"; cat $f | grep -v "^renders"; done
for f in $L/evaltrain-*.txt; do echo "$(basename $f): $(tail -1 $f)"; done
tar -C $L -cf $OUT/logs.tar .
