"""The Python parameters of each plain ISA op's recording method (pure data).

``tools/gen_op_methods.py`` reads this table with :mod:`.isa` and writes
:mod:`.op_methods_generated`: one typed method per op whose operands follow from
their kinds (register, u32 bounded by the op's ``max``, i32, f32, resource slot;
a static buffer offset for ``Rule.MEM_U32`` ops). Adding a plain op is one line
here and a rerun of the generator (a test fails while the module is stale).
This module imports nothing of the package, so the generator can load it by path.
"""

from __future__ import annotations

from typing import Any

REQUIRED: Any = object()  # marks a parameter without a default
_REG3 = (("dst", "a", REQUIRED), ("a", "b", REQUIRED), ("b", "c", REQUIRED))
_REG2 = (("dst", "a", REQUIRED), ("src", "b", REQUIRED))
_BIND = (("buffer", "b", REQUIRED), ("binding", "c", 0))
_INDEX_TYPE = ("index_type", "a", "u32")

# op name -> ((parameter, field, default), ...); parameters named index_type take
# 'u16'/'u32', and li's value may be signed or unsigned.
# fmt: off
SIGNATURES: dict[str, tuple[tuple[str, str, Any], ...]] = {
    "nop": (), "halt": (), "ret": (),
    "push": (("reg", "a", REQUIRED),), "pop": (("reg", "a", REQUIRED),),
    "li": (("reg", "a", REQUIRED), ("value", "b", REQUIRED)),
    "lf": (("reg", "a", REQUIRED), ("value", "b", REQUIRED)),
    "iaddi": (("dst", "a", REQUIRED), ("src", "b", REQUIRED), ("value", "c", REQUIRED)),
    **{name: _REG2 for name in ("mov", "ineg", "not", "itof", "ftoi")},
    **{name: _REG3 for name in ("iadd", "isub", "imul", "idiv", "irem", "and", "or", "xor",
                                "shl", "shr", "sar", "fadd", "fsub", "fmul", "fdiv", "ieq",
                                "ine", "ilt", "ile", "ult", "feq", "flt", "fle")},
    "load": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "store": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "load_indexed": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED),
                     ("index", "c", REQUIRED), ("offset", "d", 0)),
    "store_indexed": (("reg", "a", REQUIRED), ("buffer", "b", REQUIRED),
                      ("index", "c", REQUIRED), ("offset", "d", 0)),
    "skip_if_zero": (("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "skip_if_not_zero": (("buffer", "b", REQUIRED), ("offset", "c", REQUIRED)),
    "bind_framebuffer": (("framebuffer", "b", REQUIRED),),
    "resolve_framebuffer": (("source", "b", REQUIRED), ("destination", "c", REQUIRED)),
    "bind_vertex_buffer": _BIND, "bind_uniform_buffer": _BIND, "bind_storage_buffer": _BIND,
    "bind_index_buffer": (("buffer", "b", REQUIRED),),
    "bind_indirect_buffer": (("buffer", "b", REQUIRED),),
    "bind_parameter_buffer": (("buffer", "b", REQUIRED),),
    "bind_texture": (("texture", "b", REQUIRED), ("unit", "c", 0)),
    "uniform_i": (("reg", "a", REQUIRED), ("location", "b", REQUIRED)),
    "uniform_f": (("reg", "a", REQUIRED), ("location", "b", REQUIRED)),
    "draw_indexed": (("count", "b", REQUIRED), ("first", "c", 0), ("instances", "d", 1),
                     _INDEX_TYPE),
    "draw_reg": (("count", "a", REQUIRED), ("first", "b", REQUIRED),
                 ("instances", "c", REQUIRED)),
    "draw_indirect": (("offset", "b", 0),),
    "draw_indexed_indirect": (("offset", "b", 0), _INDEX_TYPE),
    "multi_draw_indirect": (("count", "c", REQUIRED), ("offset", "b", 0), ("stride", "d", 0)),
    "multi_draw_indexed_indirect": (("count", "c", REQUIRED), ("offset", "b", 0),
                                    ("stride", "d", 0), _INDEX_TYPE),
    "multi_draw_indirect_count": (("max_count", "d", REQUIRED), ("offset", "b", 0),
                                  ("count_offset", "c", 0)),
    "multi_draw_indexed_indirect_count": (("max_count", "d", REQUIRED), ("offset", "b", 0),
                                          ("count_offset", "c", 0), _INDEX_TYPE),
    "dispatch": (("x", "b", REQUIRED), ("y", "c", 1), ("z", "d", 1)),
    "dispatch_indirect": (("offset", "b", 0),),
    "barrier": (("bits", "b", 0xFFFFFFFF),),
    "fence_signal": (("fence", "b", REQUIRED),),
    "fence_wait": (("fence", "b", REQUIRED), ("timeout_us", "c", 1_000_000)),
    "upload": (("source", "b", REQUIRED), ("buffer", "c", REQUIRED)),
    "skip_if_not_ready": (("fence", "b", REQUIRED),),
    "bind_uniform_range_reg": (("buffer", "b", REQUIRED), ("binding", "a", REQUIRED),
                               ("offset_reg", "c", REQUIRED), ("size", "d", REQUIRED)),
    "bind_storage_range_reg": (("buffer", "b", REQUIRED), ("binding", "a", REQUIRED),
                               ("offset_reg", "c", REQUIRED), ("size", "d", REQUIRED)),
    "get_time": (("reg", "a", REQUIRED),), "get_delta": (("reg", "a", REQUIRED),),
    "gen_rand": (("reg", "a", REQUIRED), ("kind", "b", 0)),
    "sin_cos": (("sin", "a", REQUIRED), ("cos", "b", REQUIRED), ("angle", "c", REQUIRED)),
    "get_stat": (("reg", "a", REQUIRED), ("stat", "b", REQUIRED)),
    "assert_reg": (("reg", "a", REQUIRED),), "print": (("reg", "a", REQUIRED),),
    "dump": (("buffer", "b", REQUIRED), ("offset_reg", "c", REQUIRED), ("size", "d", REQUIRED)),
}
# fmt: on
