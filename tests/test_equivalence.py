"""The three frameworks of the book compute the same thing.

Each test runs the book's own code (`d2l/torch.py`, `d2l/mxnet.py`, `d2l/tensorflow.py`
of this checkout, imported by the framework's real interpreter) on tiny versions of its
training runs: the linear regression of training-api.md and LeNet of cnn.md.

* `test_initialisation_is_glorot_uniform_everywhere`: a model freshly built by the book
  (then called once, which is when PyTorch's lazy layers get their size) has, in every
  framework, weights drawn from Glorot's uniform law on ±sqrt(6 / (fan_in + fan_out)) and
  zero biases. Checked on each layer with more than 1 000 weights (LeNet's second
  convolution and its dense layers): the largest |w| lies between 0.97 and 1.0001 times the
  bound (for n >= 1 000 uniform draws, the largest falls below 0.97 of the bound with
  probability 0.97**1000, about 6e-14), and the standard deviation within 6 % of
  bound / sqrt(3) (its relative standard error for n uniform draws is about
  0.45 / sqrt(n) <= 1.5 %, so 6 % is four standard errors). PyTorch's default
  initialisation, ±1/sqrt(fan_in) with non-zero biases, fails both.
* `test_final_losses_agree`: the same runs from the same start. Each framework builds the
  model with the book's code, then its parameters are set to the same numbers (drawn once
  with NumPy, laid out as each framework stores them: Keras keeps channels last, so the
  first dense layer's rows are permuted); the batches come in the same order (the book's
  `get_tensorloader`, unshuffled). One epoch of the book's `Trainer` with the book's loss
  and optimiser, then the validation loss that the book plots. What remains between
  frameworks is float32 rounding in different kernels, which SGD carries along a few
  dozen steps: the final losses must agree to within 0.5 % relative (seen here: below
  1e-5; the margin leaves room for other CPUs' kernels). A factor ½ in one loss (which
  halves the effective learning rate: the linear regression would end near 1.8 instead of
  0.14), a different learning rate, momentum or weight decay, or a mean replaced by a sum
  changes them by far more than that.

Together they take a few seconds per framework (the interpreters start in parallel).
"""
from __future__ import annotations

import json
import os
import subprocess
import textwrap

import pytest

from conftest import REPO

RUNNER = textwrap.dedent(r'''
    import json, math, sys
    import numpy as onp
    tab = sys.argv[1]
    if tab == 'pytorch':
        import torch
        from d2l import torch as d2l
        torch.manual_seed(0)
        asarray = torch.from_numpy
    elif tab == 'mxnet':
        import mxnet as mx
        from mxnet import np as mnp
        from d2l import mxnet as d2l
        mx.random.seed(0)
        asarray = mnp.array
    else:
        import tensorflow as tf
        from d2l import tensorflow as d2l
        tf.keras.utils.set_random_seed(0)
        asarray = tf.constant
    assert d2l.__file__.startswith(sys.argv[2]), d2l.__file__  # this checkout's d2l

    def layers(model):
        """(kind, weight, bias) of each dense or convolutional layer, as NumPy arrays,
        weights in PyTorch's layout: (out, in) or (out, in, kh, kw)."""
        found = []
        if tab == 'pytorch':
            for layer in model.net.modules() if hasattr(model.net, 'modules') else []:
                if isinstance(layer, (torch.nn.Linear, torch.nn.Conv2d)):
                    found.append((layer, layer.weight.detach().numpy(),
                                  layer.bias.detach().numpy()))
        elif tab == 'mxnet':
            blocks = (list(model.net) if isinstance(model.net, mx.gluon.nn.Sequential)
                      else [model.net])
            for layer in blocks:
                if hasattr(layer, 'weight'):
                    found.append((layer, layer.weight.data().asnumpy(),
                                  layer.bias.data().asnumpy()))
        else:
            net_layers = model.net.layers if hasattr(model.net, 'layers') else [model.net]
            for layer in net_layers:
                if hasattr(layer, 'kernel'):
                    w = layer.kernel.numpy()
                    w = w.transpose(3, 2, 0, 1) if w.ndim == 4 else w.T
                    found.append((layer, w, layer.bias.numpy()))
        return found

    def set_parameters(model, arrays, flatten_chw):
        """Give the model's layers the weights and biases `arrays` (PyTorch layout)."""
        for (layer, _, _), (w, b) in zip(layers(model), arrays):
            if tab == 'pytorch':
                with torch.no_grad():
                    layer.weight.copy_(torch.from_numpy(w))
                    layer.bias.copy_(torch.from_numpy(b))
            elif tab == 'mxnet':
                layer.weight.set_data(mnp.array(w))
                layer.bias.set_data(mnp.array(b))
            else:
                if w.ndim == 4:
                    w = w.transpose(2, 3, 1, 0)
                else:
                    if flatten_chw is not None and w.shape[1] == onp.prod(flatten_chw):
                        c, h, wd = flatten_chw  # Keras flattens (h, w, c), not (c, h, w)
                        w = w.reshape(-1, c, h, wd).transpose(0, 2, 3, 1).reshape(len(w), -1)
                    w = w.T
                layer.kernel.assign(w)
                layer.bias.assign(b)

    def unshuffled(data):
        n = data.num_train
        data.train_dataloader = lambda: data.get_tensorloader(
            (data.X, data.y), False, slice(0, n))
        return data

    def first_call(model, X):
        model(X)  # PyTorch's lazy layers take their size here, and are initialised

    results = {}
    # A LeNet as the book builds it, called once.
    model = d2l.LeNet()
    images, _ = d2l.shape_images(2)
    first_call(model, asarray(images[:, ..., None] if tab == 'tensorflow'
                              else images[:, None]))
    results['init'] = [{'shape': list(w.shape), 'max': float(abs(w).max()),
                        'std': float(w.std()), 'bias': float(abs(b).max())}
                       for _, w, b in layers(model)]

    rng = onp.random.default_rng(0)
    def glorot(*shape):
        fan_in = int(onp.prod(shape[1:]))
        fan_out = shape[0] * int(onp.prod(shape[2:]))
        bound = math.sqrt(6 / (fan_in + fan_out))
        return rng.uniform(-bound, bound, shape).astype(onp.float32)

    # The linear regression of training-api.md: three epochs on 512 examples.
    X = rng.standard_normal((1024, 2)).astype(onp.float32)
    y = (X @ onp.array([[2], [-3.4]], onp.float32) + 4.2
         + 0.01 * rng.standard_normal((1024, 1)).astype(onp.float32))
    data = d2l.SyntheticRegressionData(w=asarray(onp.array([2, -3.4], onp.float32)),
                                       b=4.2, num_train=512, num_val=512)
    data.X, data.y = asarray(X), asarray(y)
    model = d2l.LinearRegression(lr=0.03)
    model.board.display = False
    first_call(model, data.X[:1])
    set_parameters(model, [(glorot(1, 2), onp.zeros(1, onp.float32))], None)
    d2l.Trainer(max_epochs=3).fit(model, unshuffled(data))
    results['linear'] = [float(v) for _, v in model.board.data['val_loss']]

    # LeNet of cnn.md: one epoch on 1 024 generated images.
    shapes = unshuffled(d2l.Shapes(num_train=1024, num_val=256, batch_size=32))
    model = d2l.LeNet(lr=0.1)
    model.board.display = False
    first_call(model, shapes.X[:1])
    shapes_of = [(6, 1, 5, 5), (16, 6, 5, 5), (120, 400), (84, 120), (10, 84)]
    set_parameters(model, [(glorot(*s), onp.zeros(s[0], onp.float32))
                           for s in shapes_of], flatten_chw=(16, 5, 5))
    d2l.Trainer(max_epochs=1).fit(model, shapes)
    results['lenet'] = [float(v) for _, v in model.board.data['val_loss']]
    results['lenet_accuracy'] = [float(v) for _, v in model.board.data['val_acc']]
    print(json.dumps(results))
''')


@pytest.fixture(scope="module")
def runs(framework_pythons) -> dict[str, dict]:
    """Run RUNNER in the three frameworks at once; tab -> what it printed (JSON)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TF_CPP_MIN_LOG_LEVEL": "3",
           "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    processes = {tab: subprocess.Popen(
        [str(python), "-c", RUNNER, tab, str(REPO / "d2l")], cwd=REPO, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for tab, python in framework_pythons.items()}
    results = {}
    for tab, process in processes.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, f"[{tab}]\n{err[-3000:]}"
        results[tab] = json.loads(out.strip().splitlines()[-1])
    return results


def test_initialisation_is_glorot_uniform_everywhere(runs):
    for tab, result in runs.items():
        found = result["init"]
        assert [layer["shape"] for layer in found] == [
            [6, 1, 5, 5], [16, 6, 5, 5], [120, 400], [84, 120], [10, 84]], tab
        for layer in found:
            shape = layer["shape"]
            fan_in = 1
            for d in shape[1:]:
                fan_in *= d
            fan_out = shape[0] * (fan_in // shape[1])
            bound = (6 / (fan_in + fan_out)) ** 0.5
            assert layer["bias"] == 0, (tab, shape, "biases are not zero")
            if shape[0] * fan_in < 1000:
                continue
            assert 0.97 * bound <= layer["max"] <= 1.0001 * bound, (tab, shape, layer, bound)
            assert abs(layer["std"] / (bound / 3 ** 0.5) - 1) < 0.06, (tab, shape, layer)


def test_final_losses_agree(runs):
    results = runs
    reference = results["pytorch"]
    for tab, result in results.items():
        for run in ("linear", "lenet"):
            final, expected = result[run][-1], reference[run][-1]
            assert abs(final - expected) <= 0.005 * expected, (
                f"{run}: final validation loss {final} in {tab}, {expected} in pytorch "
                f"(all: { {t: r[run] for t, r in results.items()} })")
    # The runs learn something: what they agree on is not a stalled start.
    assert reference["linear"][-1] < 0.5, reference
    assert reference["lenet"][-1] < 2.2, reference  # chance: ln 10 = 2.303
