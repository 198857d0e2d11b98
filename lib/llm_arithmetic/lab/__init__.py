"""Measurements: the tiny NumPy decoder of the measure-your-machine lab, and the datasets of
published measurements the book compares its bounds with."""
from pathlib import Path

#: The two datasets of measured decode speeds (package data), named here so that a reader of
#: their paths alone (the forecast's check that a file changed, ``describe``'s caveat) imports
#: neither module that parses them: :data:`.calibration.DATA_PATH` and
#: :data:`.measurements.DATA_PATH` are these.
CALIBRATION_CSV: Path = Path(__file__).resolve().parent / "data" / "calibration_measurements.csv"
RUNTIME_CSV: Path = CALIBRATION_CSV.with_name("runtime_measurements.csv")
