"""py_3d's lighting and material response (``render._lighting_channels``, ``Material.shade``,
``_apply_surface_attributes``, ``_apply_gamma``), vectorised over faces or pixels.

Every step keeps py_3d's float64 operation order and its truncating ``Color.from_floats``
(``int(clamp(x, 0, 1) * 255)``), so a flat face gets py_3d's exact colour.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MaterialTable:
    """Per-material arrays of a scene's py_3d materials (rows as in ``TriangleArrays``)."""

    color: np.ndarray  # (M, 3) floats 0..1
    absorption: np.ndarray  # (M, 3)
    diffuse: np.ndarray  # (M,)
    emission: np.ndarray  # (M, 3) floats 0..1
    roughness: np.ndarray
    fuzziness: np.ndarray
    specular: np.ndarray
    shininess: np.ndarray
    reflectivity: np.ndarray
    texture: np.ndarray  # (M,) index into ``textures`` or -1
    textures: tuple  # uint8 (h, w, 3) images
    color8: np.ndarray  # (M, 3) uint8: the material colour as py_3d stores it

    @classmethod
    def of(cls, materials) -> MaterialTable:
        textures: list[np.ndarray] = []
        slots: dict[int, int] = {}
        texture_index = []
        for m in materials:
            texture = getattr(m, "texture", None)
            if texture is None:
                texture_index.append(-1)
                continue
            if id(texture) not in slots:
                slots[id(texture)] = len(textures)
                raw = np.frombuffer(bytes(texture.to_rgb_bytes()), dtype=np.uint8)
                textures.append(raw.reshape(texture.height, texture.width, 3))
            texture_index.append(slots[id(texture)])

        def column(name, default=0.0):
            return np.array([float(getattr(m, name, default)) for m in materials])

        def rgb(name):
            return np.array([getattr(m, name).to_floats() for m in materials]).reshape(-1, 3)

        return cls(
            rgb("color"),
            np.array([m.absorption for m in materials], dtype=float).reshape(-1, 3),
            column("diffuse", 1.0),
            rgb("emission"),
            column("roughness"),
            column("fuzziness"),
            column("specular"),
            column("shininess", 32.0),
            column("reflectivity"),
            np.array(texture_index, dtype=np.int64),
            tuple(textures),
            np.array([m.color.to_tuple() for m in materials], dtype=np.uint8).reshape(-1, 3),
        )


@dataclass(frozen=True)
class LightSet:
    """A scene's suns and lamps in scene order (the order py_3d sums them in), as
    ``("sun", direction to the light, colour floats, intensity)`` and
    ``("lamp", position, colour floats, intensity, radius or None)``; other lights are declared
    unsupported by :mod:`.capabilities`."""

    lights: tuple

    @classmethod
    def of(cls, lights) -> LightSet:
        from py_3d import Lamp, Sun

        rows = []
        for light in lights:
            if isinstance(light, Sun):
                # Sun.sample: direction -sun.direction, normalised again by the renderer.
                d = -np.array(light.direction.as_tuple())
                length = np.sqrt(d @ d)
                rows.append(
                    (
                        "sun",
                        d / length if length else d,
                        light.color.to_floats(),
                        float(light.intensity),
                    )
                )
            elif isinstance(light, Lamp):
                rows.append(
                    (
                        "lamp",
                        np.array(light.position.as_tuple()),
                        light.color.to_floats(),
                        float(light.intensity),
                        light.radius,
                    )
                )
        return cls(tuple(rows))


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


def unit_rows(vectors: np.ndarray, fallback) -> np.ndarray:
    """Row-wise ``Vec3.normalized(fallback)``."""
    length = np.sqrt(_dot(vectors, vectors))
    zero = length == 0.0
    out = vectors / np.where(zero, 1.0, length)[:, None]
    if zero.any():
        out[zero] = np.broadcast_to(fallback, out.shape)[zero]
    return out


def lighting(lights: LightSet, points, normals, views, materials: MaterialTable, mat, settings):
    """``(diffuse, specular)`` ``(N, 3)`` light channels (``_lighting_channels``) at ``points``
    with unit ``normals`` and ``views`` (towards the camera), material rows ``mat``."""
    n = len(points)
    diffuse = np.zeros((n, 3))
    specular = np.zeros((n, 3))
    bounce = settings.bounce_light
    if bounce > 0.0:
        sky = np.maximum(0.0, normals[:, 1]) * bounce
        floor = np.maximum(0.0, -normals[:, 1]) * bounce
        diffuse += np.outer(sky, (0.22, 0.26, 0.34)) + np.outer(floor, (0.32, 0.22, 0.14))
    shininess = materials.shininess[mat]
    spec_on = (materials.specular[mat] > 0.0) | (materials.reflectivity[mat] > 0.0)
    wrap = settings.light_wrap

    def add(direction, color, intensity):
        facing = _dot(normals, direction)
        if wrap > 0.0:
            response = np.maximum(0.0, (facing + wrap) / (1.0 + wrap))
        else:
            response = np.maximum(0.0, facing)
        strength = response * intensity
        diffuse[:] += strength[:, None] * np.asarray(color)
        lit = spec_on & (strength > 0.0)
        if lit.any():
            d = direction[lit]
            halfway = unit_rows(d + views[lit], d)
            highlight = np.maximum(0.0, _dot(normals[lit], halfway)) ** shininess[lit]
            highlight = highlight * (intensity[lit] if np.ndim(intensity) else intensity)
            specular[lit] += highlight[:, None] * np.asarray(color)

    for row in lights.lights:
        if row[0] == "sun":
            _, direction, color, intensity = row
            add(np.broadcast_to(direction, (n, 3)), color, intensity)
            continue
        _, position, color, intensity, radius = row
        offset = position - points
        distance = np.sqrt(_dot(offset, offset))
        at = distance == 0.0
        # Lamp.sample's offset / distance, which the renderer normalises once more.
        direction = unit_rows(offset / np.where(at, 1.0, distance)[:, None], (0.0, 1.0, 0.0))
        direction[at] = (0.0, 1.0, 0.0)
        strength = intensity / (1.0 + distance * distance)
        strength[at] = intensity
        if radius is not None:
            strength[(distance > radius) & ~at] = 0.0
        add(direction, color, strength)
    return diffuse, specular


def shade(materials: MaterialTable, mat, base, diffuse, specular, ambient) -> np.ndarray:
    """``Material.shade`` as uint8 ``(N, 3)``; ``base`` is ``(N, 3)`` floats 0..1."""
    strength = materials.specular[mat] * (1.0 - materials.roughness[mat] * 0.85)
    strength = strength + materials.reflectivity[mat] * 0.5
    absorbed = 1.0 - materials.absorption[mat]
    light = ambient + diffuse * materials.diffuse[mat, None]
    channel = materials.emission[mat] + base * absorbed * light
    channel = channel + specular * strength[:, None]
    return to_bytes(channel)


def to_bytes(channels: np.ndarray) -> np.ndarray:
    """``Color.from_floats``: truncating, clamped."""
    return (np.clip(channels, 0.0, 1.0) * 255).astype(np.uint8)


def surface(rgb, materials: MaterialTable, mat, xs=None, ys=None, zs=None) -> np.ndarray:
    """``_apply_surface_attributes``: roughness darkens, fuzziness adds py_3d's pixel noise
    (``xs, ys, zs`` per pixel; without them the faces must have no fuzziness)."""
    roughness = materials.roughness[mat]
    factor = np.where(roughness != 0.0, 1.0 - roughness * 0.18, 1.0)
    fuzz = materials.fuzziness[mat]
    if xs is not None and (fuzz != 0.0).any():
        noise = surface_noise(xs, ys, zs)
        factor = np.where(fuzz != 0.0, factor * (1.0 + (noise - 0.5) * fuzz * 0.55), factor)
    return to_bytes((rgb / 255.0) * factor[:, None])


def surface_noise(xs, ys, zs) -> np.ndarray:
    """``_surface_noise``: only the low 16 bits are kept, so int64 wrap-around is harmless."""
    with np.errstate(over="ignore"):
        value = (
            (xs.astype(np.int64) * 73856093)
            ^ (ys.astype(np.int64) * 19349663)
            ^ (np.trunc(zs * 1000.0).astype(np.int64) * 83492791)
        )
        value = (value ^ (value >> 13)) * 1274126177
    return (value & 0xFFFF) / 0xFFFF


def gamma(rgb: np.ndarray, value: float) -> np.ndarray:
    """``_apply_gamma``."""
    if abs(value - 1.0) < 1e-9:
        return rgb
    return to_bytes((rgb / 255.0) ** (1.0 / value))


def sample_textures(materials: MaterialTable, tex, uv) -> np.ndarray:
    """``PixelBuffer.sample_nearest(u, v, wrap=False)`` of texture ``tex[i]`` (floats 0..1)."""
    out = np.empty((len(uv), 3))
    u = np.clip(uv[:, 0], 0.0, 1.0)
    v = np.clip(uv[:, 1], 0.0, 1.0)
    for index, image in enumerate(materials.textures):
        rows = tex == index
        if not rows.any():
            continue
        h, w = image.shape[:2]
        x = np.clip((u[rows] * w).astype(np.int64), 0, w - 1)
        y = np.clip((v[rows] * h).astype(np.int64), 0, h - 1)
        out[rows] = image[y, x] / 255.0
    return out
