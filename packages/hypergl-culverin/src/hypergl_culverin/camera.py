"""Camera matrices: hypergl's own (`hypergl.transforms`), under the name this package used."""

from hypergl.transforms import look_at, perspective, project

__all__ = ["look_at", "perspective", "project"]
