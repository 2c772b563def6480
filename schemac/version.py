"""schemac's release: part of every cache key and artifact, so a new release never serves grammars
an older compiler wrote (bump it with every change to what a compile produces)."""
__version__ = "0.3.0"
