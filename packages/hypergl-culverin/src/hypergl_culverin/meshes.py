"""The unit meshes live in hypergl-core (:mod:`hypergl.bodies.meshes`); re-exported here."""

from hypergl.bodies.meshes import (  # noqa: F401
    WELD,
    box,
    capsule,
    cylinder,
    indexed,
    indexed_rows,
    quad,
    sphere,
    triangles,
)
