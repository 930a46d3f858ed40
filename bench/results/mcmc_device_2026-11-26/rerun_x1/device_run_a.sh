# Device run 5 (2026-11-26 session 10, one H100): the session test that failed in run 4, with its error
# printed; then the rest of test_core [gpu] once more.
L=$OUT/l; mkdir -p $L; nvidia-smi -L
timeout 60 ./test_core "training session: 2 ranks on one GPU gather the snapshot on the device" > $L/session.log 2>&1; echo "rc=$?"; tail -30 $L/session.log
CUDA_LAUNCH_BLOCKING=1 timeout 60 ./test_core "training session: 2 ranks on one GPU gather the snapshot on the device" > $L/session_blocking.log 2>&1; echo "blocking rc=$?"; grep -E "error|state|FAILED|passed" $L/session_blocking.log | head
tar -C $L -cf $OUT/logs.tar .
