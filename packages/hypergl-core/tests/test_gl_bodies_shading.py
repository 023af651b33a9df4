"""The body renderer's shading on real GL (hypergl.bodies.shading): fixed-function lights,
materials and textures of the atlas, for any bridge (here: plain instance records)."""

from __future__ import annotations

import numpy as np
import pytest

from hypergl.bodies import (
    LIGHT_DTYPE,
    LIGHT_HEAD,
    LIGHT_WORLD,
    TEXTURE_BOX,
    BodyError,
    BodyRenderer,
    InstanceRecords,
    Material,
    TextureAtlas,
    lights,
    set_light,
)
from hypergl.testing import draw_bodies
from hypergl.transforms import look_at, perspective

pytestmark = pytest.mark.gl

IDENTITY_Q = (0.0, 0.0, 0.0, 1.0)


def shot(renderer):
    fb = renderer.framebuffer((64, 64))
    try:
        return draw_bodies(renderer, fb)["color"].astype(int)
    finally:
        fb.release()


def one_box(ctx, **options):
    """A 2 m box facing a camera 10 m up its +z, filling the middle of a 64 x 64 view."""
    records = InstanceRecords(ctx, 1)
    records.write([(0.0, 0.0, 0.0)], [IDENTITY_Q], [0])
    renderer = BodyRenderer(records, max_ids=2, **options)
    renderer.set_camera(perspective(30.0, 1.0, 0.1, 100.0) @ look_at((0, 0, 10), (0, 0, 0)))
    return records, renderer


def test_a_headlight_and_a_world_light_add_as_opengl_lights(gl_ctx):
    records, renderer = one_box(gl_ctx, max_lights=2)
    rows = lights(2)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(0.1, 0.1, 0.1), diffuse=(0.3, 0.3, 0.3))
    # a spot straight above the face, its cone wide: its diffuse at full strength there
    set_light(rows[1], kind=LIGHT_WORLD, position=(0, 0, 5), direction=(0, 0, -1),
              diffuse=(0.4, 0.2, 0.0), cutoff=60, exponent=1)  # fmt: skip
    renderer.set_lights(rows)
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(1.0, 0.5, 1.0))
    colour = shot(renderer)[32, 32]
    # (ambient + headlight diffuse) * colour + spot diffuse * colour, in 0..255
    expected = np.array([(0.1 + 0.3) * 1.0 + 0.4, (0.1 + 0.3) * 0.5 + 0.2 * 0.5, 0.4]) * 255
    np.testing.assert_allclose(colour, expected, atol=2)
    renderer.release()
    records.release()


def test_emission_and_specular_of_a_material(gl_ctx):
    records, renderer = one_box(gl_ctx, max_lights=1)
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, diffuse=(0, 0, 0), specular=(0.5, 0.5, 0.5))
    renderer.set_lights(rows)
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(0.4, 0.4, 0.4))
    renderer.set_parts(0, renderer_parts(), color=(0.4, 0.4, 0.4),
                       material=Material(specular=1.0, shininess=0.0, emission=0.5))  # fmt: skip
    colour = shot(renderer)[32, 32]
    # emission 0.5 * 0.4, plus the specular 0.5 (shininess 0: the full highlight)
    assert colour.tolist() == pytest.approx([(0.2 + 0.5) * 255] * 3, abs=2)
    renderer.release()
    records.release()


def record_frame(ctx, renderer, fb):
    """Record `renderer`'s frame into `fb` (a program kept by nobody: record() is what counts)."""
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(fb)
    renderer.record_clear(cmd)
    renderer.record(cmd)
    cmd.end()
    return cmd


def renderer_parts():
    from hypergl.bodies import named_parts

    return named_parts("box", (1.0, 1.0, 1.0))


def test_a_texture_of_the_atlas_on_a_box_face(gl_ctx):
    """A 2 x 2 image across the box's +z face (one texel per quadrant): each quadrant of
    the face shows its texel, times the lit colour."""
    records, renderer = one_box(gl_ctx, max_lights=1)
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(1, 1, 1), diffuse=(0, 0, 0))
    renderer.set_lights(rows)
    atlas = TextureAtlas()
    image = np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [255, 255, 255]]], np.uint8)
    index = atlas.add_2d(image)
    renderer.set_textures(atlas)
    renderer.set_parts(0, renderer_parts(), color=(1.0, 1.0, 1.0),
                       material=Material(texture=index, mapping=TEXTURE_BOX))  # fmt: skip
    colour = shot(renderer)
    # the face spans about pixels 21..43; u along x, v down y (MuJoCo's box faces)
    quadrants = {(26, 26): (255, 0, 0), (26, 38): (0, 255, 0), (38, 26): (0, 0, 255),
                 (38, 38): (255, 255, 255)}  # fmt: skip
    for (y, x), want in quadrants.items():
        assert np.abs(colour[y, x] - want).max() < 80, (y, x, colour[y, x])  # bilinear
    renderer.release()
    records.release()


def textured_box(ctx, image, others):
    """one_box lit by an ambient light, `image` box-mapped on it, `others` 2D images
    before it in the atlas (a cube map too: not a 2D image)."""
    records, renderer = one_box(ctx, max_lights=1)
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(1, 1, 1), diffuse=(0, 0, 0))
    renderer.set_lights(rows)
    atlas = TextureAtlas()
    atlas.add_cube(np.zeros((6, 4, 4, 3), np.uint8))
    for other in others:
        atlas.add_2d(other)
    index = atlas.add_2d(image)
    renderer.set_textures(atlas)
    renderer.set_parts(0, renderer_parts(), color=(1.0, 1.0, 1.0),
                       material=Material(texture=index, mapping=TEXTURE_BOX,
                                         uv_map=(3.0, 3.0, 0.0, 0.0)))  # fmt: skip
    return records, renderer


def test_the_atlas_s_one_2d_image_is_sampled_as_the_atlas_samples_it(gl_ctx):
    """An atlas with one 2D image gives it a GL texture of its own (the GL sampler's
    trilinear lookup, repeated), drawn as the atlas's own lookup draws it (an atlas with
    two), minified across its mip levels."""
    image = np.random.default_rng(5).integers(0, 256, (48, 40, 3), dtype=np.uint8)
    assert TextureAtlas().flat_images() == []
    pictures = []
    for others in ([], [image[:8, :8]]):
        records, renderer = textured_box(gl_ctx, image, others)
        assert (renderer.flat_texture is not None) == (not others)
        assert len(renderer._atlas.flat_images()) == 1 + len(others)
        pictures.append(shot(renderer))
        renderer.release()
        records.release()
    own, atlas = pictures
    assert (own[32, 32] != own[0, 0]).any()  # the face shows the texture
    apart = np.abs(own - atlas).max(-1)
    # the samplers' rounding apart, but where a pixel quad's uv steps over the face's edge
    # (the atlas clamps a level's lookup inside its column, the GL sampler wraps)
    assert (apart > 3).sum() <= 4
    assert apart.mean() < 0.5


def test_bad_lights_materials_and_textures_are_refused(gl_ctx):
    records, renderer = one_box(gl_ctx, max_lights=2)
    with pytest.raises(BodyError, match="lights must be shaped"):
        renderer.set_lights(lights(3))
    with pytest.raises(BodyError, match=r"rows of hypergl\.bodies\.LIGHT_DTYPE"):
        renderer.set_lights(np.zeros(2))
    with pytest.raises(BodyError, match="not in the renderer"):
        renderer.set_parts(0, renderer_parts(), material=Material(texture=0, mapping=1))
    with pytest.raises(BodyError, match="needs a mapping"):
        Material(texture=0).checked()
    with pytest.raises(BodyError, match="larger than the atlas allows"):
        TextureAtlas(max_size=64).add_2d(np.zeros((40, 40, 3), np.uint8))
    with pytest.raises(BodyError, match="six square faces"):
        TextureAtlas().add_cube(np.zeros((5, 8, 8, 3), np.uint8))
    with pytest.raises(BodyError, match="direction must be a finite non-zero"):
        set_light(np.zeros(1, LIGHT_DTYPE)[0], kind=LIGHT_WORLD, direction=(0, 0, 0))
    with pytest.raises(BodyError, match="shadow_lights must be"):
        BodyRenderer(records, max_ids=2, max_lights=1, shadow_lights=(3,))
    with pytest.raises(BodyError, match=r"2 floats \(one per body id\), got shape \(3,\)"):
        renderer.set_sort_radii([0.0, 1.0, 2.0])
    with pytest.raises(BodyError, match="finite, got nan for body id 1"):
        renderer.set_sort_radii([0.0, float("nan")])
    with pytest.raises(BodyError, match="must be floats"):
        renderer.set_sort_radii(["a", "b"])
    renderer.release()
    records.release()


def test_the_draw_pipelines_hold_the_paths_of_their_lights_and_mappings_alone(gl_ctx):
    """llvmpipe runs every branch a fragment might take: the fragment stage is made for the
    renderer's lights (a call per light, its kind a constant) and for the mappings of the
    parts it draws (an untextured box: no cube map and no 2D lookup in it)."""
    records, renderer = one_box(gl_ctx, max_lights=3)
    rows = lights(3)
    set_light(rows[0], kind=LIGHT_HEAD, diffuse=(0.5, 0.5, 0.5))
    set_light(rows[2], kind=LIGHT_WORLD, direction=(0, 0, -1), diffuse=(0.2, 0.2, 0.2))
    renderer.set_lights(rows)  # light 1 off: no call
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(1.0, 1.0, 1.0))
    shot(renderer)
    fragment = renderer.shader_sources["draw"]["fragment"]
    assert "add_light(0, 1, -1, false," in fragment and "add_light(2, 2, -1, false," in fragment
    assert "add_light(1," not in fragment
    for mapping in ("PLANAR", "BOX", "CUBE"):
        assert f"#define TEXTURE_{mapping} 0" in fragment
    assert "#define SPECULAR 0" in fragment  # no part has a specular material
    renderer.set_parts(0, renderer_parts(), color=(1.0, 1.0, 1.0),
                       material=Material(specular=0.5))  # fmt: skip
    shot(renderer)
    assert "#define SPECULAR 1" in renderer.shader_sources["draw"]["fragment"]
    renderer.release()
    records.release()


def test_the_sky_tests_a_ground_only_where_a_haze_gives_one(gl_ctx):
    """The sky's fragments discard where a haze's ground lies nearer than its cylinder; with
    no haze the test is not in the sky's pipeline (on llvmpipe a discard that never fires
    costs the sky pass ~15%), and the picture is the same either way."""
    records, renderer = one_box(gl_ctx)
    atlas = TextureAtlas()
    sky = atlas.add_cube(np.full((6, 4, 4, 3), (40, 90, 160), np.uint8))
    renderer.set_textures(atlas)
    renderer.set_sky(sky, 50.0)
    assert "#define SKY_GROUND 0" in renderer.shader_sources["sky"]["fragment"]
    plain = shot(renderer)
    assert (plain[0, 0] == (40, 90, 160)).all()  # the sky where no box is
    renderer.release()
    records.release()
    records, renderer = one_box(gl_ctx)
    renderer.set_textures(atlas)
    renderer.set_sky(sky, 50.0)
    renderer.set_haze((0.0, 0.0, -100.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0), 0.5)
    assert "#define SKY_GROUND 1" in renderer.shader_sources["sky"]["fragment"]
    assert (shot(renderer) == plain).all()  # a ground out of sight, a clear haze: the same
    renderer.release()
    records.release()


def test_the_sky_is_a_gl_cube_map_of_the_atlas_faces(gl_ctx):
    """set_sky makes a mipmapped GL cube map of the atlas's six faces (GL's order): a view
    down -z sees face 5 where no box is; set_textures again remakes it from the new atlas."""
    records, renderer = one_box(gl_ctx)
    colours = np.array([(200, 0, 0), (0, 200, 0), (0, 0, 200), (90, 90, 0), (0, 90, 90),
                        (40, 90, 160)], np.uint8)  # fmt: skip
    atlas = TextureAtlas()
    atlas.add_2d(np.zeros((4, 4, 3), np.uint8))
    sky = atlas.add_cube(np.broadcast_to(colours[:, None, None], (6, 8, 8, 3)))
    grey = TextureAtlas()
    grey.add_2d(np.zeros((4, 4, 3), np.uint8))
    grey.add_cube(np.full((6, 4, 4, 3), 77, np.uint8))
    renderer.set_textures(grey)
    renderer.set_sky(sky, 50.0)
    cube = renderer.sky_cube
    assert cube is not None and cube.layers == 6 and cube.size == (4, 4)
    renderer.set_textures(atlas)
    assert cube.released and renderer.sky_cube.size == (8, 8)
    assert (shot(renderer)[0, 0] == colours[5]).all()
    renderer.release()
    assert renderer.sky_cube.released
    records.release()


def test_set_sky_bad_input(gl_ctx):
    records, renderer = one_box(gl_ctx)
    atlas = TextureAtlas()
    for size in (4, 4, 4, 4, 4, 8):  # six 2D images, not all of one size: no cube map
        atlas.add_2d(np.zeros((size, size, 3), np.uint8))
    atlas.add_cube(np.zeros((6, 4, 4, 3), np.uint8))
    with pytest.raises(BodyError, match=r"sky texture 0 is not a cube map of the atlas \(0 images"):
        renderer.set_sky(0, 50.0)
    renderer.set_textures(atlas)
    with pytest.raises(BodyError, match="sky texture 0 is not a cube map of the atlas"):
        renderer.set_sky(0, 50.0)
    for bad in (7, -1, True, 1.0, "6"):
        with pytest.raises(BodyError, match=f"sky texture {bad!r} is not a cube map"):
            renderer.set_sky(bad, 50.0)
    for bad in (0.0, -1.0, float("nan"), "far"):
        with pytest.raises(BodyError, match="sky distance must be a positive number"):
            renderer.set_sky(6, bad)
    with pytest.raises(BodyError, match="sky axes must be a finite 3x3 matrix"):
        renderer.set_sky(6, 50.0, axes=np.full((3, 3), np.nan))
    assert renderer.sky_cube is None and not renderer.has_sky
    renderer.set_sky(6, 50.0)
    assert renderer.has_sky and renderer.sky_cube.layers == 6
    renderer.release()
    records.release()


def sky_box(ctx, **options):
    """one_box, orange, before a sky of one colour."""
    records, renderer = one_box(ctx, **options)
    atlas = TextureAtlas()
    sky = atlas.add_cube(np.full((6, 4, 4, 3), (40, 90, 160), np.uint8))
    renderer.set_textures(atlas)
    renderer.set_sky(sky, 50.0)
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(0.9, 0.3, 0.1))
    return records, renderer


def test_the_sky_after_a_resolve_is_the_multisampled_sky(gl_ctx):
    """Drawn single-sampled after the resolve, under the passes' coverage (record with
    sky=False after a clear of alpha 0), the sky gives what the multisampled sky gives:
    (1 - coverage) of it on the box's antialiased edges, all of it where no box is."""
    records, renderer = sky_box(gl_ctx, samples=4)
    size = (64, 64)
    multi = renderer.framebuffer(size)
    before = draw_bodies(renderer, multi)["color"].astype(int)
    resolved = gl_ctx.framebuffer(size, depth=None)
    picture = gl_ctx.framebuffer(size, depth=None)
    cmd = gl_ctx.command_buffer()
    cmd.bind_framebuffer(multi)
    renderer.record_clear(cmd, coverage=True)
    renderer.record(cmd, sky=False)
    cmd.resolve_framebuffer(multi, resolved)
    renderer.record_resolved_sky(cmd, resolved, picture)
    cmd.end()
    cmd.submit()
    after = renderer.read(picture)["color"].astype(int)
    edge = (before != before[0, 0]).any(-1) & (before != before[32, 32]).any(-1)
    assert edge.sum() > 0  # antialiased edges, partly sky
    assert (after[0, 0] == (40, 90, 160)).all()
    assert np.abs(after - before).max() <= 2  # an 8-bit rounding of the resolve apart
    for fb in (multi, resolved, picture):
        fb.release()
    renderer.release()
    records.release()


def test_the_sky_under_the_samples_is_the_sky_after_a_resolve(gl_ctx):
    """Given the multisampled framebuffer itself, record_resolved_sky resolves its samples
    and draws the sky under them in one pass: the picture of a resolve then the sky (each
    pixel's average kept unrounded before the sky is added: one 8-bit step apart at most)."""
    records, renderer = sky_box(gl_ctx, samples=4)
    pictures = []
    for fused in (False, True):
        cmd, framebuffers = resolved_sky_frame(gl_ctx, renderer, (64, 64), fused=fused)
        cmd.submit()
        pictures.append(renderer.read(framebuffers[-1])["color"].astype(int))
        for fb in framebuffers:
            fb.release()
    before, fused = pictures
    assert (fused[0, 0] == (40, 90, 160)).all()  # the sky where no box is
    assert (before != fused).any(-1).sum() < 0.05 * before[..., 0].size
    assert np.abs(before - fused).max() <= 1
    renderer.release()
    records.release()


def resolved_sky_frame(ctx, renderer, size=None, *, fused=False):
    """A program of `renderer`'s frame with the sky drawn after the resolve, and its
    framebuffers (the multisampled, the resolve, the picture); `fused`: the resolve and the
    sky in one pass over the samples (as hypergl_mujoco's), the resolve framebuffer unused;
    `size`: the framebuffers' (default: the views' tiling)."""
    size = size or renderer.framebuffer_size
    multi = renderer.framebuffer(size)
    resolved = ctx.framebuffer(size, depth=None)
    picture = ctx.framebuffer(size, depth=None)
    cmd = ctx.command_buffer()
    cmd.bind_framebuffer(multi)
    renderer.record_clear(cmd, coverage=True)
    renderer.record(cmd, sky=False)
    if fused:
        renderer.record_resolved_sky(cmd, multi, picture)
    else:
        cmd.resolve_framebuffer(multi, resolved)
        renderer.record_resolved_sky(cmd, resolved, picture)
    cmd.end()
    return cmd, (multi, resolved, picture)


def two_views_of_a_sky(ctx, cameras):
    """A box before a sky of random faces, seen in two 32 x 32 views, multisampled."""
    records = InstanceRecords(ctx, 2)
    records.write([(0.0, 0.0, 0.0)] * 2, [IDENTITY_Q] * 2, [0, 0])
    renderer = BodyRenderer(records, max_ids=2, views=2, samples=4)
    atlas = TextureAtlas()
    faces = np.random.default_rng(3).integers(0, 256, (6, 8, 8, 3), dtype=np.uint8)
    renderer.set_textures(atlas)  # (the sky's faces after a first atlas: set_textures again)
    sky = atlas.add_cube(faces)
    renderer.set_textures(atlas)
    renderer.set_sky(sky, 50.0)
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(0.9, 0.3, 0.1))
    renderer.set_views(cameras, (32, 32), ranges=[(0, 1), (1, 1)])
    return records, renderer


def test_the_cached_sky_is_the_sky_drawn_afresh_as_cameras_turn_and_move(gl_ctx):
    """The sky after a resolve is looked up once per view and kept (a float cache) until
    the view's rotation or projection changes: a camera that turns gets its sky drawn
    again, one that only moves keeps its own (the same, bit for bit: the sky's rays do not
    depend on the eye's position), and both frames are what a fresh renderer draws."""
    lens = perspective(60.0, 1.0, 0.1, 100.0)
    start = [lens @ look_at((0, 0, 10), (0, 0, 0)), lens @ look_at((3, 4, 2), (0, 0, 0))]
    # view 0 turns (to the side, the box off centre), view 1 moves 2.5 m along x, unturned
    later = [lens @ look_at((0, 0, 10), (4, 3, 0)), lens @ look_at((5.5, 4, 2), (2.5, 0, 0))]
    records, renderer = two_views_of_a_sky(gl_ctx, start)
    cmd, fbs = resolved_sky_frame(gl_ctx, renderer)
    stale = []
    for cameras in (start, later, later):
        renderer.set_view_matrices(np.stack(cameras))
        renderer.update()
        cmd.submit()
        keys = renderer.sky_cache.read(np.uint32)[: 2 * 28].reshape(2, 28)
        stale.append(keys[:, 24].tolist())  # each view's stale flag (after its 6 vec4 keys)
        picture = renderer.read(fbs[2])["color"]
        records_b, fresh = two_views_of_a_sky(gl_ctx, cameras)
        cmd_b, fbs_b = resolved_sky_frame(gl_ctx, fresh)
        cmd_b.submit()
        expected = fresh.read(fbs_b[2])["color"]
        assert (picture == expected).all()
        for fb in fbs_b:
            fb.release()
        fresh.release()
        records_b.release()
    # the first frame draws both skies, the turn view 0's alone, the same cameras neither
    assert stale == [[1, 1], [1, 0], [0, 0]]
    assert (picture[:32, :32] != picture[0, 0]).any(-1).mean() > 0.5  # the sky varies
    for fb in fbs:
        fb.release()
    renderer.release()
    records.release()


def test_the_sky_after_a_resolve_needs_a_sky_no_haze_and_a_framebuffer(gl_ctx):
    records, renderer = one_box(gl_ctx, samples=4)
    cmd = gl_ctx.command_buffer()
    resolved = gl_ctx.framebuffer((8, 8), depth=None)
    with pytest.raises(BodyError, match="record_resolved_sky needs a sky: call set_sky"):
        renderer.record_resolved_sky(cmd, resolved, resolved)
    renderer.release()
    records.release()
    records, renderer = sky_box(gl_ctx, samples=4)
    with pytest.raises(TypeError, match=r"resolved must be the hypergl.Framebuffer .* got 3"):
        renderer.record_resolved_sky(cmd, 3, resolved)
    with pytest.raises(TypeError, match=r"picture must be the hypergl.Framebuffer drawn into"):
        renderer.record_resolved_sky(cmd, resolved, 3)
    small = gl_ctx.framebuffer((4, 8), depth=None)
    with pytest.raises(ValueError, match=r"resolved's size \(8, 8\), got \(4, 8\)"):
        renderer.record_resolved_sky(cmd, resolved, small)
    small.release()
    renderer.set_haze((0.0, 0.0, -100.0), (0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 0.0), 0.5)
    with pytest.raises(BodyError, match="record_resolved_sky draws no haze"):
        renderer.record_resolved_sky(cmd, resolved, resolved)
    resolved.release()
    renderer.release()
    records.release()


def test_a_kind_of_light_or_a_mapping_the_recorded_pipelines_lack_asks_for_a_new_record(gl_ctx):
    """After record(), a light of another kind (or a part with a texture mapping or a
    specular material the pipelines were not made for) makes the recorded program stale:
    update() says so rather than draw it wrong, and recording the frame again draws it."""
    records, renderer = one_box(gl_ctx, max_lights=1)
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(0.2, 0.2, 0.2), diffuse=(0.3, 0.3, 0.3))
    renderer.set_lights(rows)
    renderer.set_look(0, "box", (1.0, 1.0, 1.0), color=(1.0, 1.0, 1.0))
    before = shot(renderer)[32, 32]
    # a spot straight above the face now: another kind of light
    set_light(rows[0], kind=LIGHT_WORLD, position=(0, 0, 5), direction=(0, 0, -1),
              diffuse=(0.8, 0.8, 0.8), cutoff=60, exponent=0)  # fmt: skip
    renderer.set_lights(rows)
    with pytest.raises(BodyError, match="record the frame again"):
        renderer.update()
    after = shot(renderer)[32, 32]  # recorded again: the spot's light
    np.testing.assert_allclose(before, [0.5 * 255] * 3, atol=2)
    np.testing.assert_allclose(after, [0.8 * 255] * 3, atol=2)
    # a box-mapped texture where the pipelines have no 2D lookup
    atlas = TextureAtlas()
    index = atlas.add_2d(np.full((2, 2, 3), 128, np.uint8))
    fresh_records, fresh = one_box(gl_ctx, max_lights=1)
    fresh.set_lights(rows)
    fresh.set_textures(atlas)
    fresh.set_look(0, "box", (1.0, 1.0, 1.0), color=(1.0, 1.0, 1.0))
    fb = fresh.framebuffer((64, 64))
    record_frame(gl_ctx, fresh, fb)
    fresh.set_parts(0, renderer_parts(), color=(1.0, 1.0, 1.0),
                    material=Material(texture=index, mapping=TEXTURE_BOX))  # fmt: skip
    with pytest.raises(BodyError, match="record the frame again"):
        fresh.update()
    textured = shot(fresh)[32, 32]  # recorded again: the texture's grey times the light
    np.testing.assert_allclose(textured, [0.8 * 128] * 3, atol=3)
    # a specular material where the pipelines have no specular term: a headlight's highlight
    set_light(rows[0], kind=LIGHT_HEAD, diffuse=(0, 0, 0), specular=(0.5, 0.5, 0.5))
    fresh.set_lights(rows)
    shot(fresh)
    record_frame(gl_ctx, fresh, fb)
    fresh.set_parts(0, renderer_parts(), color=(1.0, 1.0, 1.0),
                    material=Material(specular=1.0))  # fmt: skip
    with pytest.raises(BodyError, match="record the frame again"):
        fresh.update()
    shiny = shot(fresh)[32, 32]  # recorded again: the full highlight
    np.testing.assert_allclose(shiny, [0.5 * 255] * 3, atol=3)
    fb.release()
    for part in (renderer, records, fresh, fresh_records):
        part.release()


def test_mip_levels_of_an_odd_size_are_gl_generators_bilinear_blit():
    """A 100 x 100 two-cell checker (MuJoCo's builtin, as gymnasium's floors use it): its
    levels of 25 -> 12 -> 6 -> 3 texels are what Mesa's glGenerateMipmap made on llvmpipe
    (read back with moderngl, every level equal): a bilinear read at each new texel's
    centre keeps the cells' edges sharp, where a box fold of the odd row blurred them."""
    from hypergl.bodies.shading import mip_chain

    image = np.zeros((100, 100, 4), np.uint8)
    image[:, 50:, :3] = 204
    image[..., 3] = 255
    levels = [np.rint(level[0, :, 0]).astype(int).tolist() for level in mip_chain(image)]
    assert levels[2] == [0] * 12 + [102] + [204] * 12
    assert levels[3] == [0] * 6 + [204] * 6
    assert levels[4] == [0, 0, 0, 204, 204, 204]
    assert levels[5] == [0, 102, 204]
    assert levels[6] == [102]


def test_a_transparent_pass_draws_nearest_first_then_farthest_first(gl_ctx):
    """mjr_render's order over black: the near red layer, the far blue one twice, the red
    again (alpha 0.5 each, emission alone: exact colours); an id set after the recording
    makes it stale (each rank is a pass of its own)."""
    records = InstanceRecords(gl_ctx, 2)
    records.write([(0.0, 0.0, 2.0), (0.0, 0.0, 0.0)], [IDENTITY_Q] * 2, [0, 1])
    renderer = BodyRenderer(records, max_ids=3, max_lights=1, transparent=True)
    renderer.set_camera(perspective(30.0, 1.0, 0.1, 100.0) @ look_at((0, 0, 10), (0, 0, 0)))
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(0, 0, 0), diffuse=(0, 0, 0))
    renderer.set_lights(rows)
    glass = Material(emission=1.0, alpha=0.5)
    renderer.set_parts(0, renderer_parts(), color=(1.0, 0.0, 0.0), material=glass)
    renderer.set_parts(1, renderer_parts(), color=(0.0, 0.0, 1.0), material=glass)
    renderer.set_sort_radii([1.0, 1.0, 0.0])
    colour = shot(renderer)[32, 32]
    # (.5625, 0, .375); each drawn once at a(2-a) in record order (before) gave (.1875, 0,
    # .75), the far one last
    assert colour.tolist() == pytest.approx([0.5625 * 255, 0, 0.375 * 255], abs=3)
    renderer.set_parts(2, renderer_parts(), color=(0.0, 1.0, 0.0), material=glass)
    with pytest.raises(BodyError, match="one rank at a time"):
        renderer.update()
    renderer.release()
    records.release()


def test_a_transparent_pass_draws_every_row_of_an_id_a_view_holds(gl_ctx):
    """Rows sharing an id (``copies`` of them a view: a rangefinder ray's pieces) each take
    a rank of their own: three red boxes of one id and a blue one of another, side by side,
    each alone at a(2 - a) of its colour (the ranks drawn were the ids': two of the red
    ones vanished)."""
    from hypergl.bodies import named_parts

    records = InstanceRecords(gl_ctx, 4)
    records.write([(-1.5, 0.0, 0.0), (0.0, 0.0, 0.0), (1.5, 0.0, 0.0), (0.0, 1.5, 0.0)],
                  [IDENTITY_Q] * 4, [0, 0, 0, 1])  # fmt: skip
    renderer = BodyRenderer(records, max_ids=2, max_lights=1, transparent=True, copies=3)
    renderer.set_camera(perspective(30.0, 1.0, 0.1, 100.0) @ look_at((0, 0, 10), (0, 0, 0)))
    rows = lights(1)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(0, 0, 0), diffuse=(0, 0, 0))
    renderer.set_lights(rows)
    glass = Material(emission=1.0, alpha=0.5)
    small = named_parts("box", (0.3, 0.3, 0.3))
    renderer.set_parts(0, small, color=(1.0, 0.0, 0.0), material=glass)
    renderer.set_parts(1, small, color=(0.0, 0.0, 1.0), material=glass)
    picture = shot(renderer)
    # 12 pixels a metre: x = -1.5, 0, 1.5 at columns 14, 32, 50; y = 1.5 at row 14 (up)
    for row, column, colour in ((32, 14, (1, 0, 0)), (32, 32, (1, 0, 0)), (32, 50, (1, 0, 0)),
                                (14, 32, (0, 0, 1))):  # fmt: skip
        expected = [0.75 * 255 * c for c in colour]
        assert picture[row, column].tolist() == pytest.approx(expected, abs=3), (row, column)
    renderer.release()
    records.release()


def plane_shot(ctx, far_plane_lit: float | None):
    """A 4 x 4 m plane lit per vertex of its grid (lit_grid 10: its cells are its four
    quadrants), a spot and a highlight varying across it, seen from above; `far_plane_lit`:
    the lit_grid of a second plane out of sight (None: none)."""
    from hypergl.bodies import named_parts

    records = InstanceRecords(ctx, 2)
    records.write([(0.0, 0.0, 0.0), (0.0, -50.0, 0.0)], [IDENTITY_Q] * 2, [0, 1])
    renderer = BodyRenderer(records, max_ids=2, max_lights=2, primitives="raycast")
    renderer.set_camera(perspective(60.0, 1.0, 0.1, 100.0)
                        @ look_at((0.5, 5.0, 2.0), (0, 0, 0)))  # fmt: skip
    rows = lights(2)
    set_light(rows[0], kind=LIGHT_HEAD, ambient=(0.1, 0.1, 0.1), diffuse=(0.2, 0.2, 0.2),
              specular=(0.3, 0.3, 0.3))  # fmt: skip
    set_light(rows[1], kind=LIGHT_WORLD, position=(1.0, 2.0, 1.0), direction=(0, -1, 0),
              diffuse=(0.6, 0.5, 0.4), cutoff=70, exponent=2)  # fmt: skip
    renderer.set_lights(rows)
    plane = named_parts("plane", (4.0, 4.0))
    shiny = Material(specular=0.6, shininess=0.2, lit_grid=10.0)
    renderer.set_parts(0, plane, color=(0.8, 0.9, 0.8), material=shiny)
    if far_plane_lit is not None:
        renderer.set_parts(1, plane, color=(1.0, 1.0, 1.0),
                           material=Material(lit_grid=far_plane_lit))  # fmt: skip
    picture = shot(renderer)
    sources = renderer.shader_sources["ray_plane"]
    renderer.release()
    records.release()
    return picture, sources


def test_a_plane_of_quadrants_is_lit_in_the_vertex_stage_as_its_corners_per_fragment(gl_ctx):
    """A plane whose grid cells are its quadrants (shading.lighting_way) is lit per vertex
    of its 2 x 2 cells in the vertex stage (LIT_GRID 3): the picture of lighting its
    cells' corners per fragment (LIT_GRID 1, a plane lit per fragment beside it; 2, one of
    a fine grid), Gouraud either way."""
    alone, sources = plane_shot(gl_ctx, None)
    assert "#define LIT_GRID 3" in sources["fragment"]
    for far, variant in ((0.0, 1), (0.5, 2)):
        per_fragment, sources = plane_shot(gl_ctx, far)
        assert f"#define LIT_GRID {variant}" in sources["fragment"]
        assert np.abs(alone - per_fragment).max() <= 2
    assert alone.std() > 5  # lit unevenly: the spot and the highlights vary across it


def test_lighting_way_of_a_part():
    from hypergl.bodies.shading import lighting_way

    assert lighting_way(0.0, 4.0, 4.0) == "lit_point"
    assert lighting_way(10.0, 4.0, -4.0) == "lit_quadrants"  # a plane's back: x mirrored
    assert lighting_way(1.0, 4.0, 4.0) == "lit_grid"  # cells of 2 m: 4 x 4 of them
    assert lighting_way(-1.0, 4.0, 4.0) == "lit_grid"  # an infinite plane's cells
