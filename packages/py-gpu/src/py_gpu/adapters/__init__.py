"""Optional adapters for external scene packages (py_3d: :mod:`py_gpu.adapters.py3d`)."""
