#!/usr/bin/env python3
"""Reads a LOAZero export (safetensors layout, docs/DESIGN.md Data) with numpy.

    read_export.py NET.safetensors            print the metadata and tensors
    read_export.py NET.safetensors --check F  run the net in numpy (and in
                                              PyTorch when it is installed) on
                                              the inputs of F and compare with
                                              the outputs F holds

As a library: load_export(path) -> (metadata, {name: ndarray}, config);
forward_numpy(tensors, config, planes) -> (policy, value, moves_left);
build_torch_model(tensors, config) -> torch.nn.Module (needs PyTorch).
The layout mirrors net/model.h: tensor names are PyTorch state-dict names.
"""

import argparse
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pymodules import require  # noqa: E402

require("numpy")

import numpy as np

BN_EPSILON = 1e-5  # kBatchNormEpsilon, net/net_config.h
NUM_SQUARES = 64
NUM_DIRECTIONS = 8


def load_export(path):
    """Returns (metadata dict, {name: float32 ndarray}, architecture dict)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: truncated: no header")
    (header_length,) = struct.unpack("<Q", data[:8])
    if 8 + header_length > len(data):
        raise ValueError(f"{path}: truncated: the header runs past the end")
    header = json.loads(data[8 : 8 + header_length])
    metadata = header.pop("__metadata__", {})
    body = memoryview(data)[8 + header_length :]
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: tensor {name} is {entry['dtype']}, not F32")
        begin, end = entry["data_offsets"]
        if end > len(body):
            raise ValueError(f"{path}: truncated: tensor {name} runs past the end")
        array = np.frombuffer(body[begin:end], dtype="<f4").reshape(entry["shape"])
        tensors[name] = array.astype(np.float32)
    if metadata.get("format") != "loazero-net":
        raise ValueError(f"{path}: not a LOAZero export (format {metadata.get('format')!r})")
    config = json.loads(metadata["architecture"])
    return metadata, tensors, config


def has_pooling(config, block):
    k = config["global_pooling_every"]
    return k > 0 and (block + 1) % k == 0


# ---- numpy forward pass (eval mode) ---------------------------------------


def _relu(x):
    return np.maximum(x, 0)


def _conv(x, w, bias=None):
    """Same-padded convolution, NCHW input, OIHW weight."""
    k = w.shape[2]
    pad = k // 2
    n, _, h, wd = x.shape
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    out = np.zeros((n, w.shape[0], h, wd), dtype=np.float64)
    for ky in range(k):
        for kx in range(k):
            out += np.einsum("nchw,oc->nohw", padded[:, :, ky : ky + h, kx : kx + wd], w[:, :, ky, kx])
    if bias is not None:
        out += bias[None, :, None, None]
    return out


def _bn(t, prefix, x):
    mean = t[prefix + ".running_mean"][None, :, None, None]
    var = t[prefix + ".running_var"][None, :, None, None]
    gamma = t[prefix + ".weight"][None, :, None, None]
    beta = t[prefix + ".bias"][None, :, None, None]
    return (x - mean) / np.sqrt(var + BN_EPSILON) * gamma + beta


def _dense_head(t, prefix, x):
    y = _relu(_bn(t, prefix + ".bn", _conv(x, t[prefix + ".conv.weight"]))).reshape(x.shape[0], -1)
    y = _relu(y @ t[prefix + ".fc1.weight"].T + t[prefix + ".fc1.bias"])
    return y @ t[prefix + ".fc2.weight"].T + t[prefix + ".fc2.bias"]


def forward_numpy(t, config, planes):
    """Returns (policy [N, 512], value [N, 3], moves_left [N] or None) logits."""
    x = np.asarray(planes, dtype=np.float64).reshape(-1, config["input_planes"], 8, 8)
    x = _relu(_bn(t, "stem.bn", _conv(x, t["stem.conv.weight"])))
    for b in range(config["blocks"]):
        p = f"blocks.{b}"
        y = _relu(_bn(t, p + ".bn1", _conv(x, t[p + ".conv1.weight"])))
        if has_pooling(config, b):
            pooled = np.concatenate([y.mean(axis=(2, 3)), y.max(axis=(2, 3))], axis=1)
            y = y + (pooled @ t[p + ".pool.weight"].T + t[p + ".pool.bias"])[:, :, None, None]
        x = _relu(_bn(t, p + ".bn2", _conv(y, t[p + ".conv2.weight"])) + x)
    n = x.shape[0]
    p = _relu(_bn(t, "policy.bn", _conv(x, t["policy.conv.weight"])))
    p = _conv(p, t["policy.out.weight"], t["policy.out.bias"])  # [N, 8 directions, 8, 8]
    policy = p.reshape(n, NUM_DIRECTIONS, NUM_SQUARES).transpose(0, 2, 1).reshape(n, -1)
    value = _dense_head(t, "value", x)
    moves_left = _dense_head(t, "moves_left", x)[:, 0] if config["moves_left"] else None
    return policy, value, moves_left


# ---- PyTorch rebuild --------------------------------------------------------


def build_torch_model(tensors, config):
    """Returns the net as a torch.nn.Module in eval mode, weights loaded."""
    import torch
    from torch import nn

    def conv_bn(cin, cout, k):
        m = nn.Module()
        m.conv = nn.Conv2d(cin, cout, k, padding=k // 2, bias=False)
        m.bn = nn.BatchNorm2d(cout, eps=BN_EPSILON)
        return m

    class Block(nn.Module):
        def __init__(self, c, pooling):
            super().__init__()
            self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(c, eps=BN_EPSILON)
            self.pool = nn.Linear(2 * c, c) if pooling else None
            self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(c, eps=BN_EPSILON)

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            if self.pool is not None:
                pooled = torch.cat([y.mean(dim=(2, 3)), y.amax(dim=(2, 3))], dim=1)
                y = y + self.pool(pooled)[:, :, None, None]
            return torch.relu(self.bn2(self.conv2(y)) + x)

    class DenseHead(nn.Module):
        def __init__(self, c, hc, hidden, outputs):
            super().__init__()
            self.conv = nn.Conv2d(c, hc, 1, bias=False)
            self.bn = nn.BatchNorm2d(hc, eps=BN_EPSILON)
            self.fc1 = nn.Linear(hc * NUM_SQUARES, hidden)
            self.fc2 = nn.Linear(hidden, outputs)

        def forward(self, x):
            y = torch.relu(self.bn(self.conv(x))).flatten(1)
            return self.fc2(torch.relu(self.fc1(y)))

    class LoaNet(nn.Module):
        def __init__(self):
            super().__init__()
            c = config["channels"]
            self.stem = conv_bn(config["input_planes"], c, 3)
            self.blocks = nn.ModuleList([Block(c, has_pooling(config, b)) for b in range(config["blocks"])])
            self.policy = nn.Module()
            self.policy.conv = nn.Conv2d(c, config["policy_channels"], 1, bias=False)
            self.policy.bn = nn.BatchNorm2d(config["policy_channels"], eps=BN_EPSILON)
            self.policy.out = nn.Conv2d(config["policy_channels"], NUM_DIRECTIONS, 1)
            self.value = DenseHead(c, config["value_channels"], config["value_hidden"], 3)
            self.moves_left = (
                DenseHead(c, config["moves_left_channels"], config["moves_left_hidden"], 1)
                if config["moves_left"]
                else None
            )

        def forward(self, x):
            x = torch.relu(self.stem.bn(self.stem.conv(x)))
            for block in self.blocks:
                x = block(x)
            p = self.policy.out(torch.relu(self.policy.bn(self.policy.conv(x))))
            policy = p.flatten(2).transpose(1, 2).reshape(x.shape[0], -1)
            moves_left = self.moves_left(x)[:, 0] if self.moves_left is not None else None
            return policy, self.value(x), moves_left

    model = LoaNet()
    state = {name: torch.from_numpy(array.copy()) for name, array in tensors.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith("num_batches_tracked")]
    if missing or unexpected:
        raise ValueError(f"export does not fit the architecture: missing {missing}, unexpected {unexpected}")
    return model.eval()


# ---- command line -----------------------------------------------------------


def _worst_error(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b))))


def _check(tensors, config, check_path, tolerance):
    with open(check_path) as f:
        check = json.load(f)
    planes = np.asarray(check["inputs"], dtype=np.float32)
    results = {"numpy": forward_numpy(tensors, config, planes)}
    try:
        import torch
    except ImportError:
        print("PyTorch not installed: numpy check only")
    else:
        model = build_torch_model(tensors, config)
        with torch.no_grad():
            out = model(torch.from_numpy(planes).reshape(-1, config["input_planes"], 8, 8))
        results["pytorch"] = tuple(None if o is None else o.numpy() for o in out)
    ok = True
    for backend, (policy, value, moves_left) in results.items():
        errors = {"policy": _worst_error(policy, check["policy"]), "value": _worst_error(value, check["value"])}
        if moves_left is not None:
            errors["moves_left"] = _worst_error(moves_left, check["moves_left"])
        good = all(e <= tolerance for e in errors.values())
        ok = ok and good
        summary = ", ".join(f"{k} {v:.2e}" for k, v in errors.items())
        print(f"{backend}: worst relative error against the C++ outputs: {summary} ({'ok' if good else 'FAIL'})")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("export", help="a .safetensors file written by `loaz export` or `loaz init-net`")
    parser.add_argument("--check", help="JSON with inputs and the C++ outputs to compare with")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    try:
        metadata, tensors, config = load_export(args.export)
    except (OSError, ValueError, KeyError) as e:
        print(f"read_export.py: error: {e}", file=sys.stderr)
        return 1
    count = sum(a.size for a in tensors.values())
    print(f"{args.export}: {len(tensors)} tensors, {count} values")
    for key, value in sorted(metadata.items()):
        print(f"  {key}: {value}")
    for name, array in tensors.items():
        print(f"  {name} {list(array.shape)}")
    if args.check:
        return 0 if _check(tensors, config, args.check, args.tolerance) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
