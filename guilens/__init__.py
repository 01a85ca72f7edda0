"""guilens: a terminal lab for mobile GUI agents."""

__version__ = "0.1.0"
