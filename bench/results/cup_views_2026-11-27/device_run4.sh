# Device run 4 (session 14): renders of cup's extrapolated test views (54, 61, 78) for two runs of seed 3.
L=$OUT/l; mkdir -p $L/png; R=/tmp/runs; mkdir -p $R
one() { CUDA_VISIBLE_DEVICES=$1 ./splatlab train gpu-data/cup --batch-size 4 --seed 3 --out $R/r$1 > $L/train-r$1.log 2>&1; CUDA_VISIBLE_DEVICES=$1 ./splatlab eval $R/r$1 --renders > $L/eval-r$1.txt 2>&1; }
one 0 & one 1 & wait
for g in 0 1; do for v in 54 61 78 47; do cp $R/r$g/renders/$v.png $L/png/r$g-$v.png; done; grep -E "^(54|61|78|47)" $L/eval-r$g.txt; done
CUDA_VISIBLE_DEVICES=0 ./splatlab render $R/r0 --camera 79.jpg --out $L/png/r0-train79.png > /dev/null 2>&1
ls -la $L/png; tar -C $L -cf $OUT/renders.tar .
