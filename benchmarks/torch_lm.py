"""A hand-written PyTorch RoPE + SwiGLU byte transformer: the baseline of benchmarks/training.py.

The same model as `syncattn.models.TransformerLM` at a softmax preset ("tiny", "1m",
"5m"): token embedding, L pre-norm blocks (RMSNorm, causal multi-head softmax
attention with rotate-half RoPE on queries and keys and no biases, RMSNorm, SwiGLU
without biases), a final RMSNorm and an untied linear head with bias. Trained as
syncattn trains it: mean next-token cross-entropy, global-norm clipping, AdamW
(PyTorch's default multi-tensor implementation), eager.

Only the benchmark imports this file; torch is in the `bench` extra, never a
dependency of the library.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope(x, cos, sin):
    m = x.shape[-1] // 2
    x1, x2 = x[..., :m], x[..., m:]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


class Block(nn.Module):
    def __init__(self, d: int, h: int, d_ff: int, eps: float):
        super().__init__()
        self.h = h
        self.norm1, self.norm2 = RMSNorm(d, eps), RMSNorm(d, eps)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.wo = nn.Linear(d, d, bias=False)
        self.w13 = nn.Linear(d, 2 * d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d, bias=False)

    def forward(self, x, cos, sin):
        B, T, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, T, 3, self.h, d // self.h).unbind(2)
        q, k, v = (a.transpose(1, 2) for a in (q, k, v))  # (B, H, T, dh)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(B, T, d))
        g, u = self.w13(self.norm2(x)).chunk(2, -1)
        return x + self.w2(F.silu(g) * u)


class TorchLM(nn.Module):
    """The RoPE + SwiGLU byte LM, taking ``(B, T)`` token ids to ``(B, T, vocab)`` logits."""

    def __init__(self, vocab: int, d: int, n_layers: int, n_heads: int, d_ff: int,
                 eps: float = 1e-5, rope_base: float = 10_000.0):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(Block(d, n_heads, d_ff, eps) for _ in range(n_layers))
        self.final_norm = RMSNorm(d, eps)
        self.head = nn.Linear(d, vocab)
        m = d // n_heads // 2
        self.omega = rope_base ** (-torch.arange(m, dtype=torch.float32) / m)

    def forward(self, tokens):
        T = tokens.shape[1]
        ang = torch.arange(T, dtype=torch.float32)[:, None] * self.omega[None]
        cos, sin = ang.cos(), ang.sin()
        x = self.embedding(tokens)
        for block in self.blocks:
            x = block(x, cos, sin)
        return self.head(self.final_norm(x))


def build(config, *, seed: int = 0) -> TorchLM:
    """The PyTorch twin of a syncattn softmax `ModelConfig` (RMSNorm, SwiGLU, RoPE, untied head)."""
    if (config.attention, config.norm, config.ffn, config.positions) != (
        "softmax", "rmsnorm", "swiglu", "rope"
    ) or config.tie_embeddings or not config.final_norm or config.out_bias:
        raise ValueError(f"no PyTorch twin for {config}")
    torch.manual_seed(seed)
    return TorchLM(config.vocab_size, config.d_model, config.n_layers, config.n_heads,
                   config.d_ff, eps=config.norm_eps)


def make_train_step(model: TorchLM, tcfg, *, compiled: bool = False):
    """One AdamW step with global-norm clipping on the mean next-token cross-entropy;
    `compiled`: the loss (model and cross-entropy, forward and backward) through
    `torch.compile` (Inductor's CPU C++ code; the optimiser stays eager, as the fused
    `torch.optim.AdamW` CPU path is already one kernel per parameter group)."""
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg.lr, betas=(tcfg.b1, tcfg.b2),
                            eps=tcfg.eps, weight_decay=tcfg.weight_decay)
    clip = math.inf if tcfg.clip_norm is None else tcfg.clip_norm

    def loss_of(inputs, targets):
        logits = model(inputs)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))

    loss_fn = torch.compile(loss_of) if compiled else loss_of

    def step(batch):
        inputs, targets = batch[:, :-1], batch[:, 1:]
        loss = loss_fn(inputs, targets)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        return loss.detach()

    return step


def count_params(model: TorchLM) -> int:
    return sum(p.numel() for p in model.parameters())
