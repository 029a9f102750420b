"""The abstention threshold's calibration: `threshold` fits it with a finite-sample guarantee, `from_run`
turns a calibration run's records into the committed file, `committed` is that file (what was fitted, for
which experiment, and whether it applies to a report).
"""
