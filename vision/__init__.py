"""Camera, calibration, card detection and recognition for briscola-table."""
