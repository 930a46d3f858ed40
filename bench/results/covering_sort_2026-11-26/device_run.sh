# Device run 1 (2026-11-26 session 13, nvidia-h100-x2): the [gpu] tests of the covering-pairs depth sort
# and the unwritten culled rows (after), then profiles before/after (10k images: 1 GPU b1 and b4 side by
# side, 2 GPUs b4), then 2 GPUs at batch 4 on bonsai, before and after alternated, seeds 0 and 1.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
mkdir -p /work/main/build-gpu/app /work/main/build-gpu/tests && cp ./splatlab /work/main/build-gpu/app/ && cp ./dist_mpi_exchange /work/main/build-gpu/tests/
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
tst() { local bin=$1 tag=$3; timeout 200 ./$bin "$2" > $L/$bin.$tag.log 2>&1; echo "$bin $2 rc=$? $(tail -2 $L/$bin.$tag.log | tr '\n' ' ')" >> $L/tests.txt; }
( CUDA_VISIBLE_DEVICES=0 tst test_kernels "[gpu]" k ) & ( CUDA_VISIBLE_DEVICES=1 tst test_core "[gpu]" c ) & wait; el "kernels, core"
tst test_ranks "[gpu]" r; el "ranks"
tst test_app "[gpu]" a; el "app"
cat $L/tests.txt
prof() { CUDA_VISIBLE_DEVICES=$1 bash bench/profile_ab.sh ./before/splatlab ./splatlab gpu-data/bonsai $L/prof$2 10000 "$3" > $L/prof$2.txt 2>&1; }
prof 0 b1 "--batch-size 1" & prof 1 b4 "--batch-size 4" & wait; el "profiles 1 GPU"
prof 0,1 g2b4 "--batch-size 4 --gpus 2"; el "profile 2 GPUs"
cat $L/prof*.txt
for seed in 0 1; do for which in before after; do
  bin=./splatlab; [ $which = before ] && bin=./before/splatlab
  echo "bonsai | $seed | --batch-size 4 --gpus 2" | bash bench/gpu_ratio_runs.sh $bin gpu-data $L/g2-$which-s$seed 30000 > /dev/null 2>&1
  el "2 GPUs s$seed $which: $(tail -1 $L/g2-$which-s$seed/summary.md)"
done; done
rm -f $L/*/*.metrics.jsonl
tar -C $L -cf $OUT/logs.tar .
