#!/usr/bin/env python3
"""Records a real Kineto trace of a GPT-like training loop on a GPU, with
Python stacks, as the fixture chrome/pytorch211-h200-gpt was made but with
STEPS active steps (default 20): about 52 MB of trace JSON for 20 steps.

    python3 bench/record_gpt.py OUT.json [STEPS [DEVICE]]

(DEVICE "cpu" runs it without a GPU, for a check of the script alone.)

A 6-layer GPT-like model (d=768, 12 heads, sequence 256, batch 8,
vocabulary 8192), bf16 autocast, AdamW; torch.profiler with CPU and CUDA
activities, record_shapes, profile_memory, with_stack, with_modules;
record_function ranges data, forward, backward, optimizer.  Used on the
project's lent GPU machine by bench/device-speed.sh (issue 33); needs
PyTorch with CUDA."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, mask):
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=8192, d=768, heads=12, layers=6, seq=256):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("mask", torch.triu(torch.ones(seq, seq, dtype=torch.bool), 1))

    def forward(self, idx):
        t = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        for b in self.blocks:
            x = b(x, self.mask[:t, :t])
        return self.head(self.ln(x))


def train(out, steps, dev):
    torch.manual_seed(0)
    model = GPT().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    prof = torch.profiler.profile(
        activities=[torch.profiler.ProfilerActivity.CPU] +
        ([torch.profiler.ProfilerActivity.CUDA] if dev == "cuda" else []),
        schedule=torch.profiler.schedule(wait=1, warmup=1, active=steps),
        record_shapes=True, profile_memory=True, with_stack=True, with_modules=True)
    with prof:
        for _ in range(steps + 2):
            with torch.profiler.record_function("data"):
                x = torch.randint(0, 8192, (8, 256), device=dev)
                y = torch.randint(0, 8192, (8, 256), device=dev)
            with torch.autocast(dev, dtype=torch.bfloat16):
                with torch.profiler.record_function("forward"):
                    logits = model(x)
                    loss = F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), y.view(-1))
            with torch.profiler.record_function("backward"):
                loss.backward()
            with torch.profiler.record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            if dev == "cuda":
                torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(out)


if __name__ == "__main__":
    train(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20,
          sys.argv[3] if len(sys.argv) > 3 else "cuda")
