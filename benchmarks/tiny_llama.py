"""A random Llama-architecture decoder with a static KV cache, replayed as a CUDA graph.

Serving engines run the decode forward as a captured graph, so the host is free while the GPU
works; an eager HF forward is launch-bound on the host instead, which would put any host work
(mask filling) on the critical path and measure Python launch overhead rather than schemac.
RMSNorm, rotary embeddings, grouped-query attention and a SwiGLU MLP, as in Llama.
"""
from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn


class _Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, inter: int) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.norm1 = nn.RMSNorm(hidden)
        self.norm2 = nn.RMSNorm(hidden)
        self.qkv = nn.Linear(hidden, (heads + 2 * kv_heads) * self.dim, bias=False)
        self.out = nn.Linear(hidden, hidden, bias=False)
        self.gate_up = nn.Linear(hidden, 2 * inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, k_cache: torch.Tensor,
                v_cache: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, -1, self.dim).split([self.heads, self.kv_heads, self.kv_heads], 2)
        q, k = _rope(q, cos, sin), _rope(k, cos, sin)
        k_cache.index_copy_(2, positions, k.transpose(1, 2))
        v_cache.index_copy_(2, positions, v.transpose(1, 2))
        att = F.scaled_dot_product_attention(q.transpose(1, 2), k_cache, v_cache, attn_mask=mask, enable_gqa=True)
        x = x + self.out(att.transpose(1, 2).reshape(b, s, -1))
        gate, up = self.gate_up(self.norm2(x)).chunk(2, -1)
        return x + self.down(F.silu(gate) * up)


def _rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    a, b = x.chunk(2, -1)
    return torch.cat([a * cos - b * sin, a * sin + b * cos], -1)


class TinyLlama(nn.Module):
    """`forward(tokens [B, S], start)` writes the KV cache at positions start..start+S-1."""

    def __init__(self, vocab: int, hidden: int, layers: int, batch: int, max_len: int) -> None:
        super().__init__()
        heads, kv_heads = max(1, hidden // 64), max(1, hidden // 256)
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(_Layer(hidden, heads, kv_heads, hidden * 11 // 4) for _ in range(layers))
        self.norm = nn.RMSNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)
        dim = hidden // heads
        self.register_buffer("k", torch.zeros(layers, batch, kv_heads, max_len, dim), persistent=False)
        self.register_buffer("v", torch.zeros(layers, batch, kv_heads, max_len, dim), persistent=False)
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("freqs", inv, persistent=False)
        self.register_buffer("slots", torch.arange(max_len), persistent=False)

    def forward(self, tokens: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        s = tokens.shape[1]
        positions = start + torch.arange(s, device=tokens.device)
        angles = positions[:, None].float() * self.freqs[None, :]
        cos, sin = angles.cos()[None, :, None, :].to(self.k.dtype), angles.sin()[None, :, None, :].to(self.k.dtype)
        mask = self.slots[None, :] <= positions[:, None]  # [S, T]: causal over the static cache
        x = self.embed(tokens)
        for i, layer in enumerate(self.layers):
            x = layer(x, cos, sin, self.k[i], self.v[i], positions, mask)
        return self.head(self.norm(x))


class GraphedDecoder:
    """One captured decode step of `width` tokens; `step(tokens, start)` replays it."""

    def __init__(self, model: TinyLlama, batch: int, width: int, device: str) -> None:
        self.model = model
        self.tokens = torch.zeros((batch, width), dtype=torch.long, device=device)
        self.start = torch.zeros((), dtype=torch.long, device=device)
        self.graph: Any = None
        self.logits: torch.Tensor | None = None
        if device == "cuda":
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(2):
                    model(self.tokens, self.start)
            torch.cuda.current_stream().wait_stream(side)
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.logits = model(self.tokens, self.start)

    def step(self, tokens: torch.Tensor, start: int) -> torch.Tensor:
        self.tokens.copy_(tokens, non_blocking=True)
        self.start.fill_(start)
        if self.graph is None:
            return self.model(self.tokens, self.start)
        self.graph.replay()
        assert self.logits is not None
        return self.logits
