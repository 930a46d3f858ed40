# Device run 6: which [gpu] test before it breaks the two-rank session test (it passes alone).
L=$OUT/l; mkdir -p $L
S="training session: 2 ranks on one GPU*"
timeout 120 ./test_core "[gpu]" > $L/all.log 2>&1; echo "all rc=$?"; grep -E "state|error:|FAILED|passed|failed" $L/all.log | head -5
for t in "mcmc: relocation and growth on CUDA*" "default strategy: CUDA refinement*" "*CUDA demo*" "*amp*"; do
  timeout 60 ./test_core "$t,$S" > $L/pair.log 2>&1; echo "[$t] rc=$? $(grep -E 'passed|failed' $L/pair.log | tail -1)"; done
timeout 120 ./test_core "[gpu]" --order decl --list-tests > $L/order.txt 2>&1
tar -C $L -cf $OUT/logs.tar .
