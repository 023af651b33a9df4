"""Test set-up only (py_gpu never does this): py3dengine 0.0.4's ``window.py`` names the
Windows-only ``ctypes.wintypes`` handles ``HCURSOR``, ``HICON`` and ``HBRUSH`` at import, so
elsewhere ``import py_3d`` fails.  Giving them their Windows type (``HANDLE``) lets the real
package import and render here (its Win32 windows aside).  Imported by py_gpu's conftest and,
as a pytest plugin (``-p py3d_wintypes_shim``), by the run of py_3d's own test suite."""

from ctypes import wintypes

for _name in ("HCURSOR", "HICON", "HBRUSH"):
    if not hasattr(wintypes, _name):
        setattr(wintypes, _name, wintypes.HANDLE)
