"""Measurements: the tiny NumPy decoder of the measure-your-machine lab, and the datasets of
published measurements the book compares its bounds with."""
