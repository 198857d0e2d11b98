"""The catalogs as data: models (a stack of layer kinds, read from real ``config.json`` files),
chips (bandwidth, capacity, peaks, interconnect, power, each figure sourced) and weight formats.
No sympy here: the command line and :func:`llm_arithmetic.estimate` use only this and the
generated numeric functions."""
