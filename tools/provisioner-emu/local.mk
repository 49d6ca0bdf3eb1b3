# (filled in by its part)
