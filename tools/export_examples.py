#!/usr/bin/env python3
"""Exports torchvision and Hugging Face models to ONNX the ordinary way, with random weights.

A user-side example (PyTorch is not a dependency of the suite): it shows how the files the suite's
`--model FILE.onnx` accepts are made, and it is how the README's export examples were tested.
Nothing is downloaded: torchvision models are built with `weights=None`, BERT from its config.

    python3 tools/export_examples.py --out /tmp/exports                 # every model, both exporters
    python3 tools/export_examples.py --out /tmp/exports --models resnet50 --exporters dynamo
    python3 tools/export_examples.py --out /tmp/exports --models resnet18 --dynamic-batch
    python3 tools/export_examples.py --out /tmp/exports --models resnet18 --reference

Exporters: `dynamo` is torch.onnx.export's default (opset 18 or newer, IR version 10, weights in
a side file <name>.onnx.data); `legacy` is the TorchScript exporter (`dynamo=False`, opset 17,
weights inside the file). Files are named <model>_<exporter>[_dynbatch].onnx.

With --reference, each export also gets an ONNX backend-test-case folder
<out>/cases/<model>_<exporter>/ (model.onnx, test_data_set_0/input_*.pb and output_*.pb computed by
ONNX Runtime on random inputs), which `./build/onnx_check_case DIR` runs on the suite's CPU
reference executor and compares.
"""
import argparse
import os
import shutil
import sys
import time

import torch

VISION = ["resnet50", "resnet18", "mobilenet_v2", "convnext_tiny", "swin_t", "vit_b_16",
          "efficientnet_b0"]
MODELS = VISION + ["bert_base"]


class KeywordInputs(torch.nn.Module):
    """BERT called with keyword inputs, returning its two outputs as a tuple."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask=None):
        out = self.model(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
        return out.last_hidden_state, out.pooler_output


def build(name, seq, attention_mask):
    """Returns (module, example inputs, input names, output names)."""
    torch.manual_seed(0)
    if name == "bert_base":
        import transformers
        model = transformers.BertModel(transformers.BertConfig()).eval()
        ids = torch.randint(0, model.config.vocab_size, (1, seq), dtype=torch.int64)
        outputs = ["last_hidden_state", "pooler_output"]
        if not attention_mask:
            return model, (ids,), ["input_ids"], outputs
        mask = torch.ones(1, seq, dtype=torch.int64)
        return model, (ids, mask), ["input_ids", "attention_mask"], outputs
    import torchvision
    model = getattr(torchvision.models, name)(weights=None).eval()
    return model, (torch.randn(1, 3, 224, 224),), ["input"], ["logits"]


def export(name, exporter, path, dynamic_batch, seq, attention_mask):
    model, args, in_names, out_names = build(name, seq, attention_mask)
    kwargs = dict(input_names=in_names, output_names=out_names)
    if exporter == "legacy":
        kwargs.update(dynamo=False, opset_version=17)
        if dynamic_batch:
            kwargs["dynamic_axes"] = {n: {0: "batch"} for n in in_names + out_names}
    else:
        kwargs.update(dynamo=True)
        if dynamic_batch:
            batch = torch.export.Dim("batch", min=1, max=1024)
            kwargs["dynamic_shapes"] = tuple({0: batch} for _ in args)
            if dynamic_batch and args[0].shape[0] == 1:
                # torch.export specialises a size-1 dimension; trace with batch 2 instead.
                args = tuple(torch.cat([a, a]) for a in args)
    if exporter == "legacy" and name == "bert_base":
        # Transformers' forward decorators clash with the TorchScript tracer's positional call
        # ("got multiple values for argument 'use_cache'"): trace a wrapper that names the inputs.
        model = KeywordInputs(model)
    # The legacy exporter traces in training-style autograd mode: under torch.no_grad(), PyTorch's
    # MultiheadAttention takes its fused fast path (aten::_native_multi_head_attention), which
    # that exporter cannot translate.
    with torch.no_grad() if exporter == "dynamo" else torch.enable_grad():
        torch.onnx.export(model, args, path, **kwargs)
    return [a.numpy() for a in args], in_names


def write_reference(path, case_dir, feeds, in_names):
    import numpy as np
    import onnx
    import onnxruntime
    from onnx import numpy_helper
    os.makedirs(os.path.join(case_dir, "test_data_set_0"), exist_ok=True)
    base = os.path.basename(path)
    for f in os.listdir(os.path.dirname(path)):  # the model, and its external data by its own name
        if f == base or f.startswith(base + "."):
            dst = os.path.join(case_dir, "model.onnx" if f == base else f)
            if os.path.lexists(dst):
                os.remove(dst)
            os.symlink(os.path.abspath(os.path.join(os.path.dirname(path), f)), dst)
    session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(1)
    inputs = {}
    for i, (n, example) in enumerate(zip(in_names, feeds)):
        if example.dtype == np.int64 and n == "attention_mask":
            v = np.ones_like(example)  # the last quarter of the positions padded (masked out)
            v[..., example.shape[-1] - example.shape[-1] // 4:] = 0
        elif example.dtype == np.int64:
            v = rng.integers(0, 30000, size=example.shape, dtype=np.int64)
        else:
            v = rng.standard_normal(example.shape).astype(example.dtype)
        inputs[session.get_inputs()[i].name] = v
        with open(os.path.join(case_dir, "test_data_set_0", f"input_{i}.pb"), "wb") as out:
            out.write(numpy_helper.from_array(v, session.get_inputs()[i].name).SerializeToString())
    outputs = session.run(None, inputs)
    for i, (o, v) in enumerate(zip(session.get_outputs(), outputs)):
        with open(os.path.join(case_dir, "test_data_set_0", f"output_{i}.pb"), "wb") as out:
            out.write(numpy_helper.from_array(v, o.name).SerializeToString())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--out", default="/tmp/exports")
    p.add_argument("--models", nargs="+", default=MODELS, choices=MODELS)
    p.add_argument("--exporters", nargs="+", default=["dynamo", "legacy"],
                   choices=["dynamo", "legacy"])
    p.add_argument("--dynamic-batch", action="store_true",
                   help="a symbolic batch dimension named 'batch'")
    p.add_argument("--seq", type=int, default=128, help="BERT's sequence length")
    p.add_argument("--attention-mask", action="store_true",
                   help="BERT takes an attention_mask input too (<model>_<exporter>_mask.onnx; its mask "
                   "arithmetic is then run-time compute: Cast to bool, GatherND, And, Where)")
    p.add_argument("--reference", action="store_true",
                   help="also write backend-test-case folders with ONNX Runtime's outputs")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for name in a.models:
        for exporter in a.exporters:
            stem = f"{name}_{exporter}" + ("_dynbatch" if a.dynamic_batch else "")
            if name == "bert_base" and a.attention_mask:
                stem += "_mask"
            path = os.path.join(a.out, stem + ".onnx")
            start = time.time()
            try:
                feeds, in_names = export(name, exporter, path, a.dynamic_batch, a.seq,
                                         a.attention_mask)
                if a.reference:
                    write_reference(path, os.path.join(a.out, "cases", stem), feeds, in_names)
                print(f"{path}: {time.time() - start:.1f} s", flush=True)
            except Exception as e:  # report and go on with the next model
                failed += 1
                msg = str(e).strip().splitlines()
                print(f"{path}: FAILED {type(e).__name__}: {msg[0] if msg else ''}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
