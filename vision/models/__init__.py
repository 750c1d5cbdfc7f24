"""Committed model files: the card embedding (.tflite + .json) and the built-in deck."""
