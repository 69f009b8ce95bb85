"""smem_probe's helpers: finding nvcc, cuobjdump and ncu (find_tool),
running a command into a log (run_logged), progress lines (say).  Part of
scripts/smem_probe.py; Python 3 standard library only.
"""

import glob
import os
import shutil
import subprocess
import sys
import time


def find_tool(name, explicit, nvcc=None):
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    cands = []
    w = shutil.which(name)
    if w:
        cands.append(w)
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            cands.append(os.path.join(os.environ[env], "bin", name))
    if nvcc:
        cands.append(os.path.join(os.path.dirname(os.path.realpath(nvcc)), name))
    cands.append("/usr/local/cuda/bin/" + name)
    if name == "ncu":
        cands += sorted(glob.glob("/usr/local/cuda/nsight-compute*/ncu"), reverse=True)
        cands += sorted(glob.glob("/usr/local/cuda-*/bin/ncu"), reverse=True)
        cands += sorted(glob.glob("/opt/nvidia/nsight-compute/*/ncu"), reverse=True)
    else:
        cands += sorted(glob.glob("/usr/local/cuda-*/bin/" + name), reverse=True)
        # the PyPI wheels (nvidia-cuda-cuobjdump) install under site-packages
        for d in sys.path:
            cands += sorted(glob.glob(os.path.join(d, "nvidia", "*", "bin", name)))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def run_logged(cmd, log, **kw):
    """Runs cmd, appends command and output to the open file log."""
    log.write("$ %s\n" % " ".join(cmd))
    log.flush()
    t0 = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    log.write(r.stdout)
    log.write("[rc=%d, %.1f s]\n\n" % (r.returncode, time.time() - t0))
    log.flush()
    return r


def say(msg):
    sys.stdout.write("[smem_probe %s] %s\n" % (time.strftime("%H:%M:%S"), msg))
    sys.stdout.flush()
