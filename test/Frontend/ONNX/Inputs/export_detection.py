#!/usr/bin/env python3
"""Exports torchvision's SSDlite (MobileNetV3-Large backbone, 320x320, 91
classes, random weights from a fixed seed) to ONNX with PyTorch's TorchScript
exporter, the form detection models reach users in (its post-processing
holds TopK, boolean-mask indexing and NonMaxSuppression, whose outputs are
sized by the data), and writes one input image and the outputs of PyTorch
and of ONNX Runtime for it:

    python export_detection.py OUT_DIR

OUT_DIR/ssdlite.onnx, ssdlite_in0.npy (1x3x320x320 f32), ssdlite_torch.npz and
ssdlite_ort.npz (boxes, scores, labels). It needs torch, torchvision, onnx and
onnxruntime (the GPU machine has them; this machine's test venv does not
hold PyTorch), so the model is not made by the tests: see docs/onnx.md for
the run and its result.
"""
import os
import sys

import numpy as np
import torch
import torchvision

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
model = torchvision.models.detection.ssdlite320_mobilenet_v3_large(
    weights=None, weights_backbone=None, num_classes=91)
# Re-draw the 1-D parameters (biases, norms): an importer that dropped one
# would not still match.
with torch.no_grad():
    for p in model.parameters():
        if p.dim() == 1:
            p.copy_(torch.randn_like(p) * 0.1 + (1.0 if p.abs().mean() > 0.5 else 0.0))
model.eval()
rng = np.random.default_rng(0)
image = rng.random((1, 3, 320, 320), dtype=np.float32)
with torch.no_grad():
    ref = model([torch.from_numpy(image[0])])[0]
path = os.path.join(out, "ssdlite.onnx")
torch.onnx.export(model, ([torch.from_numpy(image[0])],), path, opset_version=17,
                  input_names=["image"], output_names=["boxes", "scores", "labels"],
                  dynamo=False)
np.save(os.path.join(out, "ssdlite_in0.npy"), image[0])
np.savez(os.path.join(out, "ssdlite_torch.npz"),
         **{k: v.numpy() for k, v in ref.items()})
import onnxruntime as ort
sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
got = sess.run(None, {sess.get_inputs()[0].name: image[0]})
np.savez(os.path.join(out, "ssdlite_ort.npz"),
         **{o.name: v for o, v in zip(sess.get_outputs(), got)})
print("exported %s (%.1f MB); torch: %d detections, ORT: %d; ORT boxes vs torch max diff %s"
      % (path, os.path.getsize(path) / 1e6, len(ref["scores"]), len(got[1]),
         np.abs(got[0] - ref["boxes"].numpy()).max() if got[0].shape == ref["boxes"].shape
         else "shapes differ"))
