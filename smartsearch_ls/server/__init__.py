"""The language server: a thin LSP layer over the engine that keeps each workspace folder's index warm."""
