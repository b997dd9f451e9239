"""The features of the source format, each plugged into the stages at their extension
points (see extension.py). A new feature is a module of this layer and a line here."""
from __future__ import annotations

from .citations import CITATIONS
from .claims import CLAIMS
from .conditions import CONDITIONS
from .extension import Feature
from .inline_values import INLINE_VALUES
from .recorded_values import RECORDED_VALUES

# Recorded values first: its cells go after the code cells of the split notebook, before
# the other features add cells of their own.
FEATURES: tuple[Feature, ...] = (RECORDED_VALUES, INLINE_VALUES, CLAIMS, CONDITIONS, CITATIONS)
ROLES: dict[str, Feature] = {role: feature for feature in FEATURES for role in feature.roles}
"""The feature of each role a feature adds."""
BLOCK_ROLES: dict[str, Feature] = {role: feature for feature in FEATURES
                                   for role in feature.block_roles}
"""The feature of each block role (a line of its own) a feature adds."""
RECORDED = tuple(feature for feature in FEATURES if feature.collect is not None)
"""The features whose hooks collect something from a run, which its record keeps."""
FROZEN_KEYED = frozenset(feature.key for feature in FEATURES if feature.in_frozen_key)
"""The features whose annotation is part of a notebook's frozen key."""
