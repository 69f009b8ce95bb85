#!/bin/bash
# GPU call 1: build; 4096^3, the edge configs (verification), 8192^3
set -u
t0=$(date +%s)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >$OUT/cmake.log 2>&1
cmake --build build -j16 --target tuner >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > $OUT/gpu.txt 2>&1
run() { # config, timeout
  n=$(basename $1 .cfg)
  timeout $2 ./build/tuner --config $1 --device 0 --no-prune --no-cache --output $OUT/$n > $OUT/$n.table 2> $OUT/$n.err
  echo "== $n rc=$? at $(( $(date +%s) - t0 )) s"; tail -2 $OUT/$n.err | cut -c1-300
  grep -v "pruned\|^      " $OUT/$n.table | cut -c6-300 | sed 's/ bk=64//; s/group_m=/g/; s/consumers=/c/; s/stages=/s/; s/swizzle=/sw/; s/producer=/p/; s/maxnreg=/r/; s/cluster=/cl/; s/persistent=/pe/; s/epilogue=/e/' | head -${3:-45}
}
run configs/gemm-wg-bf16.cfg 50
run tests/configs/gpu-gemm-wg-edges.cfg 30 12
run configs/gemm-wg-bf16-8192.cfg 50
run tests/configs/gpu-gemm-wg-edges-trans.cfg 30 12
echo "== gpu_gemm_edges.sh on the wgmma edge configs"
timeout 40 bash tests/gpu_gemm_edges.sh ./build/tuner tests/configs/gpu-gemm-wg-edges.cfg tests/configs/gpu-gemm-wg-edges-trans.cfg 2>&1 | tail -4
cd $OUT && tar czf run.tgz --remove-files $(ls | grep -v run.tgz) && ls -la $OUT
