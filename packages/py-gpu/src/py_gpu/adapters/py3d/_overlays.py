"""py_3d's text bulletins over a finished frame, drawn with py_3d's own ``draw`` functions
(bitmap font runs filled straight into the frame's RGB bytes), placed as ``CPURenderer`` places
them."""

from __future__ import annotations


def draw_bulletins(buffer, scene, camera) -> None:
    from py_3d import FloatingTextBulletin, TextBulletin, draw

    for bulletin in getattr(scene, "bulletins", ()):
        if isinstance(bulletin, TextBulletin):
            x, y = bulletin.position
        elif isinstance(bulletin, FloatingTextBulletin):
            projected = camera.project(bulletin.position, buffer.width, buffer.height)
            if projected is None:
                continue
            text_width, text_height = draw.text_size(bulletin.text, scale=bulletin.scale)
            total_width = text_width + bulletin.padding * 2
            total_height = text_height + bulletin.padding * 2
            x = int(projected.x + bulletin.screen_offset[0] - total_width * bulletin.anchor[0])
            y = int(projected.y + bulletin.screen_offset[1] - total_height * bulletin.anchor[1])
        else:
            continue
        padding = bulletin.padding
        if bulletin.background is not None:
            text_width, text_height = draw.text_size(bulletin.text, scale=bulletin.scale)
            size = (text_width + padding * 2, text_height + padding * 2)
            draw.rect(buffer, (x, y), size, bulletin.background, fill=True)
        draw.text(
            buffer, (x + padding, y + padding), bulletin.text, bulletin.color, scale=bulletin.scale
        )
