"""The compiled batch engine: the epoch's steps over arrays of many games at once (see game.py)."""
