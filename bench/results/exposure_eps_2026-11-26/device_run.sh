# Device run 3 (session 9, nvidia-h100-x4): the exposure maps' Adam (lr, eps) on steady photos (cup,
# bonsai) and on cup with every other training photo at 0.6 of its brightness, test views at 0.8
# (SPLAT_EXP_VARY); one experiment binary (SPLAT_EXP_CMLR, SPLAT_EXP_CMEPS), 30k images, batch 4.
L=$OUT/l; mkdir -p $L
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
one() { # gpu tag scene seed envs...
  local gpu=$1 tag=$2 scene=$3 seed=$4; shift 4
  local fl="--batch-size 4"; [ "$tag" != none ] && fl="$fl --exposure"
  env "$@" CUDA_VISIBLE_DEVICES=$gpu ./splatlab_exp train gpu-data/$scene --images 30000 --seed $seed $fl --out /tmp/r$gpu > $L/$scene$([ -n "$VARY" ] && echo V)_${tag}_s$seed.log 2>&1
  echo "$scene$([ -n "$VARY" ] && echo _varied) $tag seed $seed: $(grep '^done:' $L/$scene$([ -n "$VARY" ] && echo V)_${tag}_s$seed.log)" >> $L/summary_$gpu.txt
  rm -rf /tmp/r$gpu
}
A="SPLAT_EXP_CMLR=5e-3"; B="SPLAT_EXP_CMLR=5e-3 SPLAT_EXP_CMEPS=1e-2"; C="SPLAT_EXP_CMLR=5e-3 SPLAT_EXP_CMEPS=1e-1"; D="SPLAT_EXP_CMLR=2e-2 SPLAT_EXP_CMEPS=1e-1"
( VARY=; one 0 none cup 0 X=1; one 0 A cup 0 $A; one 0 B cup 0 $B; one 0 C cup 0 $C; one 0 D cup 0 $D ) &
( export VARY=1; one 1 none cup 0 SPLAT_EXP_VARY=0.6; one 1 A cup 0 SPLAT_EXP_VARY=0.6 $A; one 1 B cup 0 SPLAT_EXP_VARY=0.6 $B; one 1 C cup 0 SPLAT_EXP_VARY=0.6 $C; one 1 D cup 0 SPLAT_EXP_VARY=0.6 $D ) &
( VARY=; one 2 none bonsai 0 X=1; one 2 C bonsai 0 $C; one 2 D bonsai 0 $D ) &
( VARY=; one 3 B bonsai 0 $B; one 3 none cup 1 X=1; one 3 C cup 1 $C; one 3 D cup 1 $D ) &
wait; el "all"
cat $L/summary_*.txt | sed -E 's/done: trained ([0-9]+) images? //'
tar -C $L -cf $OUT/logs.tar .
