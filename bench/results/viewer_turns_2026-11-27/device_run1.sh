# Session 16, run 1: the wait-balanced shards on GPUs (tests, two GPUs before/after, the viewer).
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
{ for t in "test_ranks [gpu]" "test_core [gpu]"; do set -- $t; s=$(date +%s)
    timeout 200 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
timeout 150 ./bench_viewer --ranks 1,2 --scene gpu-data/bonsai --batch-size 4 --seconds 8 --warmup-s 3 --scenarios orbit,idle > $L/viewer.txt 2>&1
for s in 0 1; do for b in old new; do bin=./splatlab; [ $b = old ] && bin=./splatlab_old
  echo "bonsai | $s | --batch-size 4 --gpus 2" | timeout 80 bash bench/gpu_ratio_runs.sh $bin gpu-data $L/$b 30000 > /dev/null 2>&1; cat $L/$b/summary.md | tail -1 >> $L/rows_$b.md; done; done
for b in old new; do bin=./splatlab; [ $b = old ] && bin=./splatlab_old
  echo "cup | 0 | --batch-size 4 --gpus 2" | timeout 60 bash bench/gpu_ratio_runs.sh $bin gpu-data $L/$b 30000 > /dev/null 2>&1; tail -1 $L/$b/summary.md >> $L/rows_$b.md; done
tar -C $L -cf $OUT/logs.tar .
