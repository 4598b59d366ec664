#!/usr/bin/env bash
# issue 15's benchmark check: the oscillator layers before issue 15 (c84ab11, same softmax) against main, alternating
set -e
PY=${PY:-python}
OLD=${OLD:?checkout of c84ab11}
MAIN=${MAIN:-$PWD}
for i in 1 2; do
  for side in old new; do
    if [ $side = old ]; then dir=$OLD; else dir=$MAIN; fi
    echo "== round $i $side $(uptime)"
    (cd $dir && PYTHONPATH=$dir $PY benchmarks/attention.py --ts 256 1024 --layers softmax osc-closed osc-linear osc-chunked --out /tmp/ab15-$side-$i 2>/dev/null | grep "^| [0-9]")
  done
done
