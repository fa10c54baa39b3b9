"""The compiled part of textsift: the count pass's kernel (``src/textsift/_count.c``).

Everything else is in pyproject.toml; setuptools builds the extension with the machine's C
compiler, so ``pip install -e .`` (``make install``) still does all the set-up."""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "textsift._count", ["src/textsift/_count.c"],
    extra_compile_args=["-O3", "-std=c11", "-pthread", "-Wall", "-Wno-unused-function"],
    extra_link_args=["-pthread"],
)])
