# Session 16, run 2: frames taking turns with rank 0's steps while the view moves (tests; bench_viewer on/off alternated).
set -f
L=$OUT/l; mkdir -p $L
nvidia-smi -L > $L/gpus.txt
{ for t in "test_ui [gpu]" "test_core [frame_turns]"; do set -- $t; s=$(date +%s)
    timeout 150 ./$1 "$2" > $L/$1.txt 2>&1; echo "$t rc=$? $(tail -2 $L/$1.txt | tr '\n' ' ') ($(( $(date +%s)-s )) s)"; done; } > $L/tests.txt
for k in 1 2; do for ft in 1 0; do
  timeout 120 ./bench_viewer --ranks 1,2 --scene gpu-data/bonsai --batch-size 4 --seconds 8 --warmup-s 3 --scenarios orbit --frame-turns $ft > $L/viewer_turns${ft}_$k.txt 2>&1
done; done
tar -C $L -cf $OUT/logs.tar .
