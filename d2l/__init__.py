"""The d2l package of the book « Le GPU pour l'apprentissage profond ».

Import the module of your framework: ``from d2l import torch as d2l`` (or
``mxnet``, ``tensorflow``). Those modules are generated from the book by
``python3 build.py lib``; the version below comes from config.ini's release.
"""
__version__ = "0.1.0"
