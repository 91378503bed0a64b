"""Declares the optional Cython extension; all metadata lives in pyproject.toml.

Switches (environment variables):
  GCXWIRE_NO_EXTENSIONS=1       build pure Python, no compiler needed
  GCXWIRE_REQUIRE_EXTENSIONS=1  a failed compile fails the install (CI, wheels)
Without either, a missing Cython or a failed compile falls back to pure Python.
"""

import os
import platform
from pathlib import Path

from setuptools import setup

NO_EXTENSIONS = bool(os.environ.get("GCXWIRE_NO_EXTENSIONS"))
REQUIRE_EXTENSIONS = bool(os.environ.get("GCXWIRE_REQUIRE_EXTENSIONS"))


def _extensions():
    if NO_EXTENSIONS or platform.python_implementation() != "CPython":
        print("*** gcxwire: pure Python build ***")
        return []
    try:
        from Cython.Build import cythonize
        from setuptools import Extension
    except ImportError:
        if REQUIRE_EXTENSIONS:
            raise
        print("*** gcxwire: Cython not found, pure Python build ***")
        return []
    # The .pyx is a shell over .pxi parts and two C headers: a change to any
    # of them rebuilds the extension.
    parts = sorted(str(p) for p in Path("src/gcxwire").glob("_*.pxi"))
    headers = sorted(str(p) for p in Path("src/gcxwire").glob("_gcx_*.h"))
    exts = cythonize(
        [
            Extension(
                "gcxwire._speedups", ["src/gcxwire/_speedups.pyx"], depends=parts + headers
            )
        ],
        compiler_directives={"language_level": "3", "embedsignature": True},
    )
    # cythonize() returns fresh Extension objects with optional=False, whatever
    # we passed in; set it again so a failed compile falls back to pure Python.
    for ext in exts:
        ext.optional = not REQUIRE_EXTENSIONS
    print("*** gcxwire: accelerated build (Cython) ***")
    return exts


setup(ext_modules=_extensions())
