"""The d2l package of the book « Le GPU pour l'apprentissage profond ».

Import the module of your framework: ``from d2l import torch as d2l`` (or
``mxnet``, ``tensorflow``). Those modules are generated from the book by
``python3 build.py lib``, which also writes the version below: config.ini's
release and a label naming the package's content (the launch notebooks install
the git tag of that version).
"""
__version__ = "0.1.0+d2l.0b157de8f4ac"
