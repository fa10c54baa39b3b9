"""The compiled parts of textsift: the count pass's kernel (``src/textsift/_count.c``, the
extension ``textsift._count``) and Fisher's exact test of many tables
(``src/textsift/_fisher.c``, ``textsift._fisher``).

Everything else is in pyproject.toml; setuptools builds the extensions with the machine's C
compiler, so ``pip install -e .`` (``make install``) still does all the set-up."""

from setuptools import Extension, setup

FLAGS = ["-O3", "-std=c11", "-Wall", "-Wno-unused-function"]

setup(ext_modules=[
    Extension("textsift._count", ["src/textsift/_count.c"],
              extra_compile_args=[*FLAGS, "-pthread"], extra_link_args=["-pthread"]),
    Extension("textsift._fisher", ["src/textsift/_fisher.c"], extra_compile_args=FLAGS,
              libraries=["m"]),
])
