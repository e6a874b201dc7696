#!/usr/bin/env python3
"""Exports torchvision's SSDlite (MobileNetV3-Large backbone, 320x320, 91
classes, random weights from a fixed seed) to ONNX with PyTorch's TorchScript
exporter, the form detection models reach users in (its post-processing
holds TopK, boolean-mask indexing and NonMaxSuppression, whose outputs are
sized by the data), and writes one input image and the outputs of PyTorch
and of ONNX Runtime for it:

    python export_detection.py OUT_DIR [ssdlite] [fasterrcnn]

OUT_DIR/NAME.onnx, NAME_in0.npy (3x320x320 f32), NAME_torch.npz and
NAME_ort.npz (boxes, scores, labels) for each model named (SSDlite when
none is; fasterrcnn: Faster R-CNN, MobileNetV3-Large FPN, a narrower box
head). It needs torch, torchvision, onnx and
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
names = sys.argv[2:] or ["ssdlite"]
os.makedirs(out, exist_ok=True)


def redraw(model):
    """Re-draw the 1-D parameters (biases, norms): an importer that dropped
    one would not still match."""
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() == 1:
                p.copy_(torch.randn_like(p) * 0.1 + (1.0 if p.abs().mean() > 0.5 else 0.0))
    return model.eval()


def ssdlite():
    return torchvision.models.detection.ssdlite320_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=91), 320


def fasterrcnn():
    """Faster R-CNN with MobileNetV3-Large FPN at 320 (RPN, RoIAlign over the
    FPN levels, per-class NMS), its box head narrowed to 256 features so the
    file travels (the 1024-wide head alone is 13M parameters)."""
    from torchvision.models.detection.faster_rcnn import FastRCNNPredictor, TwoMLPHead
    model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
        weights=None, weights_backbone=None, num_classes=91)
    model.roi_heads.box_head = TwoMLPHead(256 * 7 * 7, 256)
    model.roi_heads.box_predictor = FastRCNNPredictor(256, 91)
    return model, 320


MODELS = {"ssdlite": ssdlite, "fasterrcnn": fasterrcnn}

for name in names:
    torch.manual_seed(0)
    model, size = MODELS[name]()
    model = redraw(model)
    rng = np.random.default_rng(0)
    image = rng.random((1, 3, size, size), dtype=np.float32)
    with torch.no_grad():
        ref = model([torch.from_numpy(image[0])])[0]
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(model, ([torch.from_numpy(image[0])],), path, opset_version=17,
                      input_names=["image"], output_names=["boxes", "scores", "labels"],
                      dynamo=False)
    np.save(os.path.join(out, name + "_in0.npy"), image[0])
    np.savez(os.path.join(out, name + "_torch.npz"),
             **{k: v.numpy() for k, v in ref.items()})
    import onnxruntime as ort
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: image[0]})
    np.savez(os.path.join(out, name + "_ort.npz"),
             **{o.name: v for o, v in zip(sess.get_outputs(), got)})
    print("exported %s (%.1f MB); torch: %d detections, ORT: %d; ORT boxes vs torch max diff %s"
          % (path, os.path.getsize(path) / 1e6, len(ref["scores"]), len(got[1]),
             np.abs(got[0] - ref["boxes"].numpy()).max() if got[0].shape == ref["boxes"].shape and got[0].size
             else "shapes differ or none"))
