#!/usr/bin/env python3
"""Exports a zoo of real model architectures with PyTorch's two ONNX
exporters, for checking Tide against ONNX Runtime on models it was not
written for (zoo_check.py runs the check):

    python export_zoo.py OUT_DIR [NAMES [TARBALL_DIR]]

NAMES: comma-separated parts of model names ("" for all); with TARBALL_DIR
the exported files are also packed there in tarballs of at most 15 MB.

Each model is built with random weights (torchvision and Hugging Face
architectures at their own code, small configurations where the full one
would be tens of MB) and exported twice where the exporter allows:
`NAME_dynamo.onnx` (torch.onnx.export dynamo=True, opset 18) and
`NAME_legacy.onnx` (the TorchScript exporter, opset 17), with the inputs
next to them (NAME_in0.npy, ...). Export failures are printed and skipped.
With ZOO_DYNAMIC=1 the batch (and sequence) are symbolic in the exported
files and the inputs have other sizes than the traced ones (below); with
ZOO_HALF=1 the models are float16 on the GPU; ZOO_EXPORTERS=legacy (or
dynamo) uses one exporter.
Needs torch, torchvision, transformers and onnxscript (the GPU machine's
image has them; this repository's venv does not).
"""
import os
import sys
import tarfile
import traceback

import numpy as np
import torch

out = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else ""
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)


def redraw(module):
    """Norm parameters and running statistics off their initial 1/0, so an
    importer that dropped one would not still match."""
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


def vision():
    import torchvision.models as tvm
    from torchvision.models.efficientnet import _efficientnet_conf, EfficientNet
    from torchvision.models.convnext import ConvNeXt, CNBlockConfig
    from torchvision.models.vision_transformer import VisionTransformer
    from torchvision.models.swin_transformer import SwinTransformer
    from torchvision.models.densenet import DenseNet

    image = lambda n=224: (torch.randn(1, 3, n, n),)
    yield "mobilenet_v2", lambda: tvm.mobilenet_v2(num_classes=10), image()
    yield "mobilenet_v3_small", lambda: tvm.mobilenet_v3_small(num_classes=10), image()
    yield "squeezenet1_1", lambda: tvm.squeezenet1_1(num_classes=10), image()
    yield "shufflenet_v2", lambda: tvm.shufflenet_v2_x0_5(num_classes=10), image()
    yield "mnasnet0_5", lambda: tvm.mnasnet0_5(num_classes=10), image()

    def effnet():
        setting, last = _efficientnet_conf("efficientnet_b0", width_mult=0.5,
                                           depth_mult=0.5)
        return EfficientNet(setting, 0.2, last_channel=last, num_classes=10)
    yield "efficientnet_small", effnet, image()
    yield "densenet_small", lambda: DenseNet(growth_rate=12, block_config=(2, 3, 4),
                                             num_init_features=16, num_classes=10), image()
    yield "convnext_small", lambda: ConvNeXt(
        [CNBlockConfig(24, 48, 2), CNBlockConfig(48, 96, 2), CNBlockConfig(96, None, 2)],
        num_classes=10), image(128)
    yield "vit_small", lambda: VisionTransformer(
        image_size=64, patch_size=16, num_layers=2, num_heads=4, hidden_dim=64,
        mlp_dim=128, num_classes=10), image(64)
    yield "swin_small", lambda: SwinTransformer(
        patch_size=[4, 4], embed_dim=24, depths=[2, 2], num_heads=[2, 4],
        window_size=[4, 4], num_classes=10), image(64)


class Wrap(torch.nn.Module):
    """A Hugging Face model as a plain function of tensors: positional
    arguments passed by the names given (default input_ids, attention_mask),
    no cache, the tensor outputs as a tuple."""

    def __init__(self, model, names=("input_ids", "attention_mask")):
        super().__init__()
        self.model = model
        self.names = names

    def forward(self, *args):
        kwargs = dict(zip(self.names, args))
        if "use_cache" in self.model.forward.__code__.co_varnames:
            kwargs["use_cache"] = False
        result = self.model(**kwargs, return_dict=False)
        flat = []

        def collect(r):
            if isinstance(r, torch.Tensor):
                flat.append(r)
            elif isinstance(r, (tuple, list)):
                for x in r:
                    collect(x)
        collect(result)
        return tuple(flat)


def language():
    import transformers as hf
    ids = torch.randint(0, 100, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 11:] = 0
    small = dict(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=128)
    yield "gpt2", lambda: Wrap(hf.GPT2Model(hf.GPT2Config(
        vocab_size=100, n_embd=64, n_layer=2, n_head=4, n_positions=64))), (ids, mask)
    yield "llama", lambda: Wrap(hf.LlamaModel(hf.LlamaConfig(
        num_key_value_heads=2, max_position_embeddings=64, **small))), (ids, mask)
    yield "distilbert", lambda: Wrap(hf.DistilBertModel(hf.DistilBertConfig(
        vocab_size=100, dim=64, n_layers=2, n_heads=4, hidden_dim=128))), (ids, mask)
    yield "roberta", lambda: Wrap(hf.RobertaModel(hf.RobertaConfig(
        max_position_embeddings=64, **small))), (ids, mask)
    yield "t5_encoder", lambda: Wrap(hf.T5EncoderModel(hf.T5Config(
        vocab_size=100, d_model=64, d_kv=16, d_ff=128, num_layers=2,
        num_heads=4))), (ids, mask)
    yield "vit_hf", lambda: Wrap(hf.ViTModel(hf.ViTConfig(
        image_size=64, patch_size=16, **{k: v for k, v in small.items()
                                          if k != "vocab_size"})), ("pixel_values",)), (torch.randn(1, 3, 64, 64),)
    yield "albert", lambda: Wrap(hf.AlbertModel(hf.AlbertConfig(
        embedding_size=32, max_position_embeddings=64, **small))), (ids, mask)
    yield "deberta_v2", lambda: Wrap(hf.DebertaV2Model(hf.DebertaV2Config(
        max_position_embeddings=64, relative_attention=True, position_buckets=8,
        pos_att_type=["p2c", "c2p"], **small))), (ids, mask)
    yield "qwen2", lambda: Wrap(hf.Qwen2Model(hf.Qwen2Config(
        num_key_value_heads=2, max_position_embeddings=64, **small))), (ids, mask)
    yield "gpt_neox", lambda: Wrap(hf.GPTNeoXModel(hf.GPTNeoXConfig(
        max_position_embeddings=64, rotary_pct=0.5, **small))), (ids, mask)
    yield "bart_encoder", lambda: Wrap(hf.BartModel(hf.BartConfig(
        vocab_size=100, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
        decoder_ffn_dim=128, max_position_embeddings=64)).get_encoder()), (ids, mask)
    yield "whisper_encoder", lambda: Wrap(hf.WhisperModel(hf.WhisperConfig(
        vocab_size=100, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4,
        encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
        max_source_positions=32, max_target_positions=16, pad_token_id=0,
        bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)).encoder, ("input_features",)), (torch.randn(1, 16, 64),)


# ZOO_DYNAMIC=1: the batch (and a token model's sequence) exported as
# symbolic sizes (dynamic_shapes / dynamic_axes), and the inputs saved at
# other sizes than the traced ones (batch 3; sequence 11, the last one
# padded), as NAME_EXPORTER_dyn.
dynamic = os.environ.get("ZOO_DYNAMIC") == "1"
# ZOO_HALF=1: the model and its float inputs in float16 on the GPU, exported
# as NAME_EXPORTER_f16, with PyTorch's own outputs there as the reference
# (NAME_EXPORTER_f16_torch0.npy, ...: ONNX Runtime's CPU kernels do not take
# float16 everywhere).
half = os.environ.get("ZOO_HALF") == "1"


def other_sizes(inputs):
    if inputs[0].dtype != torch.int64:  # images, audio
        return tuple(torch.randn(3, *x.shape[1:]) for x in inputs)
    # input_ids, attention_mask, then token types (the same shape) or
    # decoder ids (their own length)
    ids = torch.randint(0, 100, (3, 11))
    mask = torch.ones(3, 11, dtype=torch.int64)
    mask[2, 7:] = 0
    result = [ids, mask]
    for x in inputs[2:]:
        if x.shape == inputs[0].shape:
            result.append((torch.arange(11) >= 6).to(torch.int64).expand(3, 11).clone())
        else:
            result.append(torch.randint(0, 100, (3, 5)))
    return tuple(result[:len(inputs)])


def export(model, inputs, path, exporter):
    tokens = inputs[0].dtype == torch.int64
    if exporter == "dynamo":
        shapes = None
        if dynamic:
            batch = torch.export.Dim("batch", min=1, max=64)
            seq = torch.export.Dim("seq", min=2, max=64)
            shapes = tuple(({0: batch, 1: seq if x.shape == inputs[0].shape else
                             torch.export.Dim(f"seq{i}", min=2, max=64)}) if tokens else {0: batch}
                           for i, x in enumerate(inputs))
        torch.onnx.export(model, inputs, path, dynamo=True, opset_version=18,
                          external_data=False, dynamic_shapes=shapes)
    else:
        names = [f"in{i}" for i in range(len(inputs))]
        # Inputs of the first one's shape share its sequence; others (a
        # decoder's ids) have their own.
        axes = {n: ({0: "batch", 1: "seq" if x.shape == inputs[0].shape else f"seq{i}"}
                    if tokens else {0: "batch"})
                for i, (n, x) in enumerate(zip(names, inputs))} if dynamic else None
        torch.onnx.export(model, inputs, path, dynamo=False, opset_version=17,
                          input_names=names, dynamic_axes=axes)


def language2():
    """More Hugging Face architectures, tiny configurations."""
    import transformers as hf
    ids = torch.randint(0, 100, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 11:] = 0
    tt = torch.zeros(2, 16, dtype=torch.int64)
    tt[:, 8:] = 1
    dec = torch.randint(0, 100, (2, 7))
    pixels = torch.randn(1, 3, 64, 64)
    small = dict(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                 num_attention_heads=4, intermediate_size=128)
    lm = (ids, mask)
    yield "bert_tt", lambda: Wrap(hf.BertModel(hf.BertConfig(max_position_embeddings=64, **small)),
                                  ("input_ids", "attention_mask", "token_type_ids")), (ids, mask, tt)
    yield "electra", lambda: Wrap(hf.ElectraModel(hf.ElectraConfig(
        embedding_size=32, max_position_embeddings=64, **small))), lm
    yield "mobilebert", lambda: Wrap(hf.MobileBertModel(hf.MobileBertConfig(
        vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, embedding_size=32, intra_bottleneck_size=32,
        true_hidden_size=32, max_position_embeddings=64))), lm
    yield "squeezebert", lambda: Wrap(hf.SqueezeBertModel(hf.SqueezeBertConfig(
        max_position_embeddings=64, q_groups=2, k_groups=2, v_groups=2, post_attention_groups=2,
        intermediate_groups=4, output_groups=4, **small))), lm
    yield "convbert", lambda: Wrap(hf.ConvBertModel(hf.ConvBertConfig(
        embedding_size=64, max_position_embeddings=64, head_ratio=2, conv_kernel_size=5, **small))), lm
    yield "gpt2", lambda: Wrap(hf.GPT2Model(hf.GPT2Config(
        vocab_size=100, n_embd=64, n_layer=2, n_head=4, n_positions=64))), lm
    yield "opt", lambda: Wrap(hf.OPTModel(hf.OPTConfig(
        vocab_size=100, hidden_size=64, num_hidden_layers=2, ffn_dim=128, num_attention_heads=4,
        max_position_embeddings=64, word_embed_proj_dim=64))), lm
    yield "bloom", lambda: Wrap(hf.BloomModel(hf.BloomConfig(
        vocab_size=100, hidden_size=64, n_layer=2, n_head=4))), lm
    yield "mpt", lambda: Wrap(hf.MptModel(hf.MptConfig(
        vocab_size=100, d_model=64, n_heads=4, n_layers=2, expansion_ratio=2, max_seq_len=64))), lm
    yield "falcon", lambda: Wrap(hf.FalconModel(hf.FalconConfig(
        vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        new_decoder_architecture=False, multi_query=True, alibi=False))), lm
    yield "gptj", lambda: Wrap(hf.GPTJModel(hf.GPTJConfig(
        vocab_size=100, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=64))), lm
    yield "phi", lambda: Wrap(hf.PhiModel(hf.PhiConfig(
        max_position_embeddings=64, partial_rotary_factor=0.5, **small))), lm
    yield "gemma", lambda: Wrap(hf.GemmaModel(hf.GemmaConfig(
        num_key_value_heads=1, head_dim=16, max_position_embeddings=64, **small))), lm
    yield "mistral", lambda: Wrap(hf.MistralModel(hf.MistralConfig(
        num_key_value_heads=2, max_position_embeddings=64, sliding_window=8, **small))), lm
    yield "mamba", lambda: Wrap(hf.MambaModel(hf.MambaConfig(
        vocab_size=100, hidden_size=64, num_hidden_layers=2, state_size=8, expand=2,
        conv_kernel=4)), ("input_ids",)), (ids,)
    yield "t5", lambda: Wrap(hf.T5Model(hf.T5Config(
        vocab_size=100, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4,
        decoder_start_token_id=0)), ("input_ids", "attention_mask", "decoder_input_ids")), (ids, mask, dec)
    yield "bart", lambda: Wrap(hf.BartModel(hf.BartConfig(
        vocab_size=100, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
        decoder_ffn_dim=128, max_position_embeddings=64)),
        ("input_ids", "attention_mask", "decoder_input_ids")), (ids, mask, dec)
    yield "clip_text", lambda: Wrap(hf.CLIPTextModel(hf.CLIPTextConfig(
        max_position_embeddings=64, **small))), lm
    yield "clip_vision", lambda: Wrap(hf.CLIPVisionModel(hf.CLIPVisionConfig(
        image_size=64, patch_size=16, **{k: v for k, v in small.items() if k != "vocab_size"})),
        ("pixel_values",)), (pixels,)
    yield "segformer", lambda: Wrap(hf.SegformerForSemanticSegmentation(hf.SegformerConfig(
        num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
        patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2], mlp_ratios=[2, 2],
        decoder_hidden_size=32, num_labels=5)), ("pixel_values",)), (pixels,)
    yield "mobilevit", lambda: Wrap(hf.MobileViTModel(hf.MobileViTConfig(
        image_size=64, hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64])),
        ("pixel_values",)), (pixels,)
    yield "convnext_hf", lambda: Wrap(hf.ConvNextModel(hf.ConvNextConfig(
        hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1])), ("pixel_values",)), (pixels,)
    yield "swin_hf", lambda: Wrap(hf.SwinModel(hf.SwinConfig(
        image_size=64, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[2, 4], window_size=4)),
        ("pixel_values",)), (pixels,)
    yield "deit_hf", lambda: Wrap(hf.DeiTModel(hf.DeiTConfig(
        image_size=64, patch_size=16, **{k: v for k, v in small.items() if k != "vocab_size"})),
        ("pixel_values",)), (pixels,)
    yield "wav2vec2", lambda: Wrap(hf.Wav2Vec2Model(hf.Wav2Vec2Config(
        hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        conv_dim=(32, 32, 32), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4)), ("input_values",)), \
        (torch.randn(1, 4000),)


made = []
for family in (vision, language, language2):
    try:
        models = list(family())
    except Exception:
        traceback.print_exc()
        continue
    for name, build, inputs in models:
        if only and not any(o in name for o in only.split(",")):
            continue
        try:
            model = redraw(build())
            if half:
                model = model.half().cuda()
                inputs = tuple(x.half().cuda() if x.is_floating_point() else x.cuda()
                               for x in inputs)
        except Exception as e:
            print(f"{name}: not built: {type(e).__name__}: {e}".splitlines()[0])
            continue
        for exporter in os.environ.get("ZOO_EXPORTERS", "dynamo,legacy").split(","):
            tag = f"{name}_{exporter}" + ("_dyn" if dynamic else "") + ("_f16" if half else "")
            path = os.path.join(out, tag + ".onnx")
            try:
                with torch.no_grad():
                    export(model, inputs, path, exporter)
            except Exception as e:
                print(f"{tag}: export failed: {type(e).__name__}: "
                      f"{str(e).splitlines()[0] if str(e) else ''}"[:300])
                continue
            for i, x in enumerate(other_sizes(inputs) if dynamic else inputs):
                np.save(os.path.join(out, f"{tag}_in{i}.npy"), x.cpu().numpy())
            if half:
                with torch.no_grad():
                    result = model(*inputs)
                result = result if isinstance(result, tuple) else (result,)
                for k, r in enumerate(result):
                    np.save(os.path.join(out, f"{tag}_torch{k}.npy"), r.float().cpu().numpy()
                            if r.dtype == torch.bfloat16 else r.cpu().numpy())
            size = os.path.getsize(path)
            print(f"{tag}: {size / 1e6:.1f} MB")
            made.append(tag)

# Tarballs of at most 15 MB each (the transfer's per-file limit).
if len(sys.argv) > 3:
    dest, group, total, k = sys.argv[3], [], 0, 0

    def flush():
        global group, total, k
        if group:
            with tarfile.open(os.path.join(dest, f"zoo{k}.tar.gz"), "w:gz") as tar:
                for f in group:
                    tar.add(os.path.join(out, f), arcname=f)
            k, group, total = k + 1, [], 0
    for m in made:
        files = [f for f in os.listdir(out) if f.startswith(m + ".") or f.startswith(m + "_in")
                 or f.startswith(m + "_torch")]
        size = sum(os.path.getsize(os.path.join(out, f)) for f in files)
        if size > 15e6:
            print(f"{m}: {size / 1e6:.1f} MB, too large to bring back")
            continue
        if total + size > 15e6:
            flush()
        group += files
        total += size
    flush()
