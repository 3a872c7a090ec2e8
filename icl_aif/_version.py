"""The package version (read by the run manifest and ``icl_aif.__version__``)."""

__version__ = "0.1.0"
