"""Measurements: the tiny NumPy decoder of the measure-your-machine lab, and the datasets of
published measurements the book compares its bounds with."""
from ..core.paths import data_file, lazy_paths

#: The two datasets of measured decode speeds (package data), named here so that a reader of
#: their paths alone (the forecast's check that a file changed, ``describe``'s caveat) imports
#: neither module that parses them: :data:`.calibration.DATA_PATH` and
#: :data:`.measurements.DATA_PATH` are ``CALIBRATION_CSV`` and ``RUNTIME_CSV``, their
#: :class:`pathlib.Path` (made when first asked for); ``describe`` reads the text paths.
CALIBRATION_CSV_FILE = data_file(__file__, "data", "calibration_measurements.csv")
RUNTIME_CSV_FILE = data_file(__file__, "data", "runtime_measurements.csv")
__getattr__ = lazy_paths(globals(), CALIBRATION_CSV=CALIBRATION_CSV_FILE,
                         RUNTIME_CSV=RUNTIME_CSV_FILE)
