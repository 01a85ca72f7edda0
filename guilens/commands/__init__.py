"""One module per area, each with `register(app)`; `guilens.cli` picks them all up.

Keep these modules cheap to import: import heavy things inside the commands.
"""
