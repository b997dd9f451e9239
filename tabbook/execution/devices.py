"""Which devices a notebook's code really used, asked of its kernel after the last cell.

A section can declare ``#gpus(2)`` and still compute on the CPU (a missing
``.to(device)``, a framework build without CUDA). The executor appends the
probe below as a last cell, removes it from the saved notebook and keeps what
it printed in the provenance: the GPU memory the framework allocated at its
peak, and the devices of the tensors and models left in the notebook's
namespace. The devices named in the outputs are read afterwards, from the
notebook itself.
"""
from __future__ import annotations

import json
import re

from ..core.frameworks import DEVICE_PATTERN
from ..notebooks.long_outputs import joined

MARKER = "tabbook-device-use:"

# Runs in the notebook's kernel. It imports no framework the notebook did not
# import, and never fails the notebook.
PROBE = r'''
def _tabbook_device_use():
    import json, sys
    peaks, devices = {}, set()
    objects = list(get_ipython().user_ns.values())
    # One level into plain objects too: a Trainer holds its model, a model its net.
    objects += [v for o in objects if hasattr(o, "__dict__") and not isinstance(o, type)
                and type(o).__module__ != "builtins"
                for v in list(vars(o).values())]
    torch = sys.modules.get("torch")
    if torch is not None:
        if torch.cuda.is_initialized():
            for i in range(torch.cuda.device_count()):
                peaks[f"cuda:{i}"] = torch.cuda.max_memory_allocated(i) / 2 ** 20
        for o in objects:
            if isinstance(o, torch.Tensor):
                devices.add(str(o.device))
            elif isinstance(o, torch.nn.Module):
                devices.update(str(p.device) for p in o.parameters())
    tf = sys.modules.get("tensorflow")
    if tf is not None:
        for device in tf.config.list_logical_devices("GPU"):
            name = device.name.split("device:")[-1]
            peaks[name] = tf.config.experimental.get_memory_info(name)["peak"] / 2 ** 20
        for o in objects:
            if isinstance(o, (tf.Tensor, tf.Variable)):
                devices.add(o.device)
            elif isinstance(o, tf.Module) or hasattr(o, "trainable_variables"):
                # Keras 3 variables keep their tf.Variable in .value.
                for v in getattr(o, "variables", []):
                    devices.add(getattr(v, "device", None) or getattr(v.value, "device", ""))
    mx = sys.modules.get("mxnet")
    if mx is not None:
        for o in objects:
            if isinstance(o, (mx.nd.NDArray, mx.np.ndarray)):
                devices.add(str(o.ctx))
            elif isinstance(o, mx.gluon.Block):
                for p in o.collect_params().values():
                    try:
                        devices.update(str(c) for c in p.list_ctx())
                    except Exception:   # a parameter not initialised yet
                        pass
    print("MARKER" + json.dumps({"gpu_memory_peak_mib": {k: round(v, 1) for k, v in peaks.items()},
                                 "object_devices": sorted(devices)}))
try:
    _tabbook_device_use()
except Exception as err:
    print("MARKER" + __import__("json").dumps({"probe_error": f"{type(err).__name__}: {err}"}))
'''.replace("MARKER", MARKER)

GPU_WORDS = re.compile(r"cuda|gpu", re.IGNORECASE)


def read_probe(text: str) -> dict:
    """The probe's result from the text it printed (empty dict if it printed nothing)."""
    for line in reversed(text.splitlines()):
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):])
    return {}


def normalise(device: str) -> str:
    """'cuda:0', 'gpu(0)', 'GPU:0', 'cpu'...: one short spelling per framework's device."""
    device = device.split("device:")[-1]   # also /physical_device:GPU:0
    found = re.fullmatch(r"device\(type='(\w+)'(?:, index=(\d+))?\)", device)
    if found:
        return f"{found.group(1)}:{found.group(2)}" if found.group(2) else found.group(1)
    return device.lstrip("/")


def is_gpu(device: str) -> bool:
    return bool(GPU_WORDS.search(device))


def used_gpu(device_use: dict) -> bool | None:
    """True if the kernel allocated GPU memory or kept tensors on a GPU; None if unknown."""
    if not device_use or "probe_error" in device_use:
        return None
    return any(peak > 0 for peak in device_use.get("gpu_memory_peak_mib", {}).values()) or \
        any(is_gpu(d) for d in device_use.get("object_devices", []))


def devices_in_outputs(notebook: dict | None) -> list[str]:
    """Device names the code printed or displayed, in order of first appearance."""
    seen: dict[str, None] = {}
    for cell in (notebook or {}).get("cells", []):
        for output in cell.get("outputs", []):
            for text in (output.get("text", ""), output.get("data", {}).get("text/plain", "")):
                for match in DEVICE_PATTERN.finditer(joined(text)):
                    seen.setdefault(normalise(match.group(0)))
    return list(seen)
