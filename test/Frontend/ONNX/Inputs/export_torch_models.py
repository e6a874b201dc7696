#!/usr/bin/env python3
"""Exports the small real PyTorch models that torch-exports.test runs, with
PyTorch's own ONNX exporter (torch.onnx.export, dynamo=True, opset 18,
symbolic batch and sequence), into test/Frontend/ONNX/Inputs/torch/:

    python export_torch_models.py [OUT_DIR]

It needs torch, transformers and onnxscript, which are not part of the test
venv (PyPI's torch wheel pulls about 4 GB of CUDA libraries): the exported
files are committed, and this script says how they were made. Exported with
torch 2.15.0, transformers 5.24.0, onnxscript 0.7.2 (see the test for the sizes
each model is run at).

- bert_tiny: Hugging Face `transformers.BertModel` (2 layers, hidden 64, 4
  heads, vocabulary 100), inputs input_ids and attention_mask with symbolic
  batch and sequence: the exporter builds the additive attention mask from the
  batch size at run time (Shape, Range, Expand, Where ...).
- cnn_small: a small torchvision-style CNN (convolution + batch norm + ReLU,
  a depthwise convolution, squeeze-and-excitation with hardsigmoid, a residual
  add, global average pooling, flatten, linear) with a symbolic batch.

Random weights; 1-D parameters (biases, norms) are re-drawn so that an
importer that dropped one would not still match.
"""
import os
import sys

import torch

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "torch")
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


def redraw(module):
    g = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.dim() == 1:
                base = 1.0 if name.endswith("weight") else 0.0
                p.copy_(torch.randn(p.shape, generator=g) * 0.1 + base)
        for name, b in module.named_buffers():
            if "running_var" in name:
                b.copy_(torch.rand(b.shape, generator=g) + 0.5)
            elif "running_mean" in name:
                b.copy_(torch.randn(b.shape, generator=g) * 0.1)
    return module.eval()


class SmallCnn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(16), nn.ReLU())
        self.dw = nn.Sequential(nn.Conv2d(16, 16, 3, padding=1, groups=16, bias=False),
                                nn.BatchNorm2d(16), nn.Hardswish())
        self.se = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(16, 8, 1), nn.ReLU(),
                                nn.Conv2d(8, 16, 1), nn.Hardsigmoid())
        self.pw = nn.Sequential(nn.Conv2d(16, 24, 1, bias=False), nn.BatchNorm2d(24))
        self.down = nn.Conv2d(16, 24, 1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.head = nn.Linear(24, 10)

    def forward(self, x):
        x = self.stem(x)
        y = self.dw(x)
        y = y * self.se(y)
        y = self.pw(y) + self.down(x)
        y = self.pool(torch.relu(y))
        y = torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1)
        return self.head(y)


batch = torch.export.Dim("batch", min=1, max=64)
seq = torch.export.Dim("seq", min=2, max=64)

cnn = redraw(SmallCnn())
torch.onnx.export(cnn, (torch.randn(2, 3, 32, 32),), os.path.join(out, "cnn_small.onnx"),
                  dynamo=True, opset_version=18, dynamic_shapes=({0: batch},),
                  input_names=["x"], output_names=["logits"], external_data=False)

from transformers import BertConfig, BertModel  # noqa: E402

config = BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=128,
                    max_position_embeddings=64)
bert = redraw(BertModel(config))
ids = torch.randint(0, 100, (2, 16))
mask = torch.ones(2, 16, dtype=torch.int64)
mask[1, 12:] = 0
torch.onnx.export(bert, (ids, mask), os.path.join(out, "bert_tiny.onnx"), dynamo=True,
                  opset_version=18,
                  dynamic_shapes=({0: batch, 1: seq}, {0: batch, 1: seq}),
                  input_names=["input_ids", "attention_mask"],
                  output_names=["last_hidden_state", "pooler_output"], external_data=False)
print("exported to", out)
