"""One module per app of the simulated phone; `registry` lists them in launcher order."""
