#!/bin/bash
# The device run of 2026-11-23 19:47 UTC on nvidia-h200-x2 (bench/TRAINING.md "Multi-GPU, first runs"). From the repository root,
# with the binaries of the commit built into .gpubin/ and the scenes in .data/:  source .device/env.sh; bash bench/multi_gpu_run.sh
# 2 GPUs: the new kernel tests, NCCL sharded step, 1 vs 2 GPU training, exchange bench.
B=${B:-.gpubin}
nvidia-smi -L
$B/test_kernels "[loss],[stages]" 2>&1 | tail -2
$B/test_dist "[gpu]" 2>&1 | tail -2
for g in 1 2; do
  rm -rf /tmp/g
  extra=""; [ $g = 2 ] && extra="--gpus 2"
  (while true; do nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits >> $OUT/mem_g$g.txt; sleep 0.2; done) & sampler=$!
  $B/splatlab train .data/bonsai --images 14000 --batch-size 2 $extra --eval-every 14000 --log-every 1000 --out /tmp/g > $OUT/train_g$g.log 2>&1
  kill $sampler
  cp /tmp/g/metrics.jsonl $OUT/metrics_g$g.jsonl
  echo "gpus $g: $(tail -c 260 $OUT/train_g$g.log | tr '\r\n' '  ' | tail -c 230)"
  echo "peak MiB per GPU: $(sort -t, -k1,1n -k2,2n $OUT/mem_g$g.txt | awk -F', ' '{m[$1]=($2>m[$1]?$2:m[$1])} END{for(i in m) printf "%s:%s ", i, m[i]}')"
done
$B/bench_exchange .data/bonsai 3000 15 > $OUT/exchange.txt 2>&1; cat $OUT/exchange.txt | tail -14
